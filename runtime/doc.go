// Package runtime will run a compiled circuit on an encrypted backend with a
// dataflow scheduler (issue "Encrypted runs on FHEW"). It is empty until then.
package runtime
