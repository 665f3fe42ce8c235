package aesbench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// FormatBytes is n bytes in B, KB, MB or GB (decimal).
func FormatBytes(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f KB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d
}

// WriteMarkdown writes rows as a Markdown table with the conditions (load
// average, threads) above it and the notes below.
func WriteMarkdown(w io.Writer, rows []Row, threads int, load string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "AES-128 under FHE, %d thread(s), load average %s (figures under load are noisy; compare rows of one run)\n\n", threads, load)
	b.WriteString("| design | set | blocks/eval | latency | per block | peak RSS | levels/round | upload/block without transciphering | with (16 B/block +) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range rows {
		r := &rows[i]
		set := r.Params
		if !r.Secure {
			set += " (insecure)"
		}
		lv := "-"
		if r.LevelsPerRound > 0 {
			lv = fmt.Sprintf("%.1f", r.LevelsPerRound)
		}
		peak := "?"
		if r.PeakRSS > 0 {
			peak = FormatBytes(float64(r.PeakRSS))
		}
		with := "-"
		if r.UploadKey > 0 {
			with = "key once: " + FormatBytes(float64(r.UploadKey))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %v | %v | %s | %s | %s | %s |\n", r.Name, set, r.Blocks, roundDur(r.Latency), roundDur(r.PerBlock()),
			peak, lv, FormatBytes(r.UploadFHE), with)
	}
	b.WriteString("\n")
	for i := range rows {
		r := &rows[i]
		fmt.Fprintf(&b, "- %s: %d block(s) checked against crypto/aes; %s; process RSS before the row %s.\n", r.Design, r.Checked, r.Note, FormatBytes(float64(r.BaseRSS)))
	}
	b.WriteString("- levels/round: byte-sliced from the noise model's budget of the run; bit-sliced the input level / 10. " +
		"Upload with transciphering: 16 bytes of AES-CTR data per block plus, once, the AES key under FHE " +
		"(hcc transcipher uses the byte-sliced design on BGV and aes128.hdl per record on FHEW; the bit-sliced row's key size is what its would be).\n")
	_, err := io.WriteString(w, b.String())
	return err
}
