// Package hcc compiles Boolean circuits and runs them encrypted.
package hcc
