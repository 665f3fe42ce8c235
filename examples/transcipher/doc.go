// Package transcipher is the end-to-end transciphering example: 16-byte
// sensor records encrypted with AES-128-CTR (openssl in run.sh,
// crypto/cipher in the test), turned into BGV ciphertexts by a server that
// holds neither the AES key nor the secret key, the sensor circuit
// (sensor.hdl: ReLU and a threshold comparison per reading) run on every
// record, and the results decrypted and checked. See README.md.
package transcipher
