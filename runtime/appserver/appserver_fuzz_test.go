package appserver

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// The App Server line reader returns whole lines, or a blank for one it skipped, for any
// byte stream.
func FuzzAppServerReadLine(f *testing.F) {
	for _, s := range []string{`{"id":1,"result":{}}` + "\n", `{"method":"turn/completed","params":{}}` + "\n", "\n", "partial", strings.Repeat("z", 300) + "\nnext\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		total := 0
		for {
			line, err := readLine(br)
			total += len(line)
			if total > len(data)+1 {
				t.Fatalf("read %d bytes from %d", total, len(data))
			}
			if err != nil {
				return
			}
		}
	})
}
