package catalog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codexhost/codexhost/internal/atomicfile"
)

// A title index file holds, per thread, its id, createdAt, updatedAt and title: metadata,
// never a preview or any other text of a conversation. It is a cache: unreadable, of another
// format, Codex version or Codex home, it is ignored and written anew.
//
//	codexhost-titles 1
//	{"codex":"0.169.0","home":"<hash>","watermark":1796147545}
//	<id>\t<createdAt>\t<updatedAt>\t<title>
const (
	titlesMagic  = "codexhost-titles"
	titlesFormat = 1
	// maxTitlesFile bounds what is read: maxIndexRows rows of the longest titles fit.
	maxTitlesFile = 256 << 20
)

type titlesHeader struct {
	Codex     string `json:"codex"`
	Home      string `json:"home"`
	Watermark int64  `json:"watermark"`
}

// titlesPath is the file of a host's index in dir, named by a hash of the host id.
func titlesPath(dir, hostID string) string {
	sum := sha256.Sum256([]byte("codexhost titles\n" + hostID))
	return filepath.Join(dir, "titles-"+hex.EncodeToString(sum[:8])+".idx")
}

// homeKey names a Codex home without its path.
func homeKey(codexHome string) string {
	if codexHome == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("codexhost codex home\n" + filepath.Clean(codexHome)))
	return hex.EncodeToString(sum[:8])
}

// encodeTitles writes an index in the file format.
func encodeTitles(w io.Writer, h titlesHeader, entries []titleEntry) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head, _ := json.Marshal(h)
	fmt.Fprintf(bw, "%s %d\n%s\n", titlesMagic, titlesFormat, head)
	for _, e := range entries {
		bw.WriteString(e.id)
		bw.WriteByte('\t')
		bw.WriteString(strconv.FormatInt(e.createdAt, 10))
		bw.WriteByte('\t')
		bw.WriteString(strconv.FormatInt(e.updatedAt, 10))
		bw.WriteByte('\t')
		bw.WriteString(cleanTitle(e.title)) // one line without tabs
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

var errTitlesFormat = errors.New("not a title index of this format")

// decodeTitles parses an index file; any damage rejects it whole.
func decodeTitles(data []byte) (titlesHeader, []titleEntry, error) {
	var h titlesHeader
	magic, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(magic) != fmt.Sprintf("%s %d", titlesMagic, titlesFormat) {
		return h, nil, errTitlesFormat
	}
	head, rest, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || json.Unmarshal(head, &h) != nil || h.Watermark < 0 {
		return h, nil, errTitlesFormat
	}
	entries := make([]titleEntry, 0, bytes.Count(rest, []byte("\n")))
	for len(rest) > 0 {
		var line []byte
		if line, rest, ok = bytes.Cut(rest, []byte("\n")); !ok {
			return h, nil, fmt.Errorf("%w: the last line is cut", errTitlesFormat)
		}
		e, err := decodeTitleLine(string(line))
		if err != nil {
			return h, nil, err
		}
		if len(entries) >= maxIndexRows {
			return h, nil, fmt.Errorf("%w: more than %d rows", errTitlesFormat, maxIndexRows)
		}
		entries = append(entries, e)
	}
	return h, entries, nil
}

func decodeTitleLine(line string) (titleEntry, error) {
	f := strings.SplitN(line, "\t", 4)
	if len(f) != 4 || f[0] == "" || len(f[0]) > 100 || !utf8.ValidString(line) {
		return titleEntry{}, fmt.Errorf("%w: bad row", errTitlesFormat)
	}
	created, err1 := strconv.ParseInt(f[1], 10, 64)
	updated, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || created < 0 || updated < 0 {
		return titleEntry{}, fmt.Errorf("%w: bad times", errTitlesFormat)
	}
	title := cleanTitle(f[3])
	return titleEntry{id: f[0], title: title, titleFold: fold(title), createdAt: created, updatedAt: updated}, nil
}

// readTitlesFile reads a host's index file; a missing or damaged one is no index.
func readTitlesFile(path string) (titlesHeader, []titleEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return titlesHeader{}, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTitlesFile+1))
	if err != nil {
		return titlesHeader{}, nil, err
	}
	if len(data) > maxTitlesFile {
		return titlesHeader{}, nil, fmt.Errorf("%w: larger than %d bytes", errTitlesFormat, maxTitlesFile)
	}
	return decodeTitles(data)
}

// writeTitlesFile replaces the index file atomically: a temporary file (0600) renamed over
// it, in a directory made 0700.
func writeTitlesFile(path string, h titlesHeader, entries []titleEntry) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFunc(path, func(w io.Writer) error { return encodeTitles(w, h, entries) })
}
