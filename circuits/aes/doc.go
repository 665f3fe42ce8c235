// Package aes will hold the AES-128 circuit written in hcc's HDL (the AES
// issue). Until then the external Bristol circuits in shared/circuits serve
// as the AES reference.
package aes
