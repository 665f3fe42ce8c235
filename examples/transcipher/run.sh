#!/bin/sh
# Transciphering end to end: 16-byte sensor records encrypted with
# openssl's AES-128-CTR, turned into BGV ciphertexts by the server (which
# never sees the AES key or the secret key), the sensor circuit run on
# every record, the results decrypted and checked against the plaintext
# simulator. See README.md.
#
#   sh examples/transcipher/run.sh            # toy ring, seconds (INSECURE: demo only)
#   PARAMS=M65537 sh examples/transcipher/run.sh   # 128-bit security, minutes and GBs
#
# HCC names the hcc binary (default: built from this checkout into $WORK).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PARAMS=${PARAMS:-ToyM257Deep}
RECORDS=${RECORDS:-20}
WORK=${WORK:-$(mktemp -d)}
insecure=""
case $PARAMS in Toy*) insecure=--insecure ;; esac
# At M65537 AES leaves the records at level 2: the depth lowering of
# sensor.hdl (AND-depth 4) fits there, the size lowering (7) does not.
style=size
case $PARAMS in M65537) style=depth ;; esac
STYLE=${STYLE:-$style}
if [ -z "${HCC:-}" ]; then
	(cd "$here/../.." && go build -o "$WORK/hcc" ./cmd/hcc)
	HCC=$WORK/hcc
fi
circuit=$here/sensor.hdl
cd "$WORK"
echo "working in $WORK ($PARAMS, -style $STYLE)"

# --- client: keys, the AES key under BGV, the data under AES-128-CTR ---
"$HCC" keygen --backend bgv --params "$PARAMS" $insecure --transcipher -o keys --force
openssl rand -hex 16 > aes.key
iv=$(openssl rand -hex 16)
openssl rand $((16 * RECORDS)) > readings.bin     # RECORDS records of 16 signed bytes
openssl enc -aes-128-ctr -K "$(cat aes.key)" -iv "$iv" -nosalt -in readings.bin -out readings.aes
"$HCC" transcipher encrypt-key -style "$STYLE" --key keys/secret.key --aes-key-file aes.key "$circuit" -o aeskey.ct
ls -l readings.aes aeskey.ct

# --- server: transcipher, then the circuit on every record ---
"$HCC" transcipher eval -style "$STYLE" --eval-key keys/eval.key --aes-key aeskey.ct --iv "$iv" "$circuit" readings.aes -o readings.ct
"$HCC" eval -style "$STYLE" --eval-key keys/eval.key "$circuit" readings.ct -o result.ct

# --- client: decrypt and check ---
"$HCC" decrypt -style "$STYLE" --key keys/secret.key "$circuit" readings.ct -o readings.out
cmp readings.out readings.bin && echo "transciphered records decrypt byte-identical to the plaintext"
"$HCC" decrypt -style "$STYLE" --key keys/secret.key "$circuit" result.ct > result.txt
: > want.txt
n=0
od -An -v -t d1 -w16 readings.bin | while read -r line; do
	n=$((n + 1))
	echo "# instance $n" >> want.txt
	"$HCC" sim "$circuit" --in "r=$(echo $line | tr ' ' ',')" >> want.txt
done
cmp result.txt want.txt && echo "all $RECORDS results equal the plaintext simulator's"
head -3 result.txt
