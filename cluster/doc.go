// Package cluster runs hcc evaluations on many hosts through NATS JetStream.
//
// A submitter stores the evaluation key and the compiled program once in
// JetStream's object store under their ids (content hashes), splits a
// ciphertext batch into tasks (FHEW: groups of instances; BGV: slot packs),
// stores each task's ciphertexts as an object and publishes one small task
// message per part to a work-queue stream. Workers on any host pull one task
// at a time, fetch and cache the key and program (verifying checksums), signal
// progress while they evaluate, store the output and write the task's result
// once (a late duplicate is ignored), then acknowledge. A task whose worker
// dies is redelivered after the ack wait; one that fails for a reason a retry
// cannot fix (a damaged ciphertext, another key) fails the job with that
// reason. The submitter watches the results, so it may disconnect and resume
// by job id, and joins the outputs in order.
//
// StartServer embeds a NATS server with JetStream (file store or memory);
// Connect joins it or any external NATS server or cluster by URL. Workers
// only ever hold evaluation keys: the secret key never leaves the client.
package cluster
