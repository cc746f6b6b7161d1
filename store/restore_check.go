package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dgraph-io/badger/v4/pb"
	"google.golang.org/protobuf/proto"

	"github.com/codexhost/codexhost/model"
)

// notABackup is the error for a file that is not a complete backup written by BackupTo.
func notABackup(path, why string) error {
	return model.Errorf(model.CodeInvalidArgument, "name a complete file written by `codexhost backup`",
		"%s is not a codexhost backup: %s", path, why)
}

// checkBackup reads the whole backup at f before anything is written: badger's stream of
// length-prefixed key lists, every length within the file, every list well formed, every key a
// record key ("<prefix>/<id>"). It returns how many records the backup holds.
func checkBackup(f *os.File, path string) (int, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	left := st.Size()
	r := bufio.NewReaderSize(f, 1<<20)
	records := 0
	var buf []byte
	for {
		var sz uint64
		err := binary.Read(r, binary.LittleEndian, &sz)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, notABackup(path, "it ends inside a length")
		}
		left -= 8
		if sz > uint64(left) {
			return 0, notABackup(path, fmt.Sprintf("a length of %d bytes runs past its end", sz))
		}
		left -= int64(sz)
		if uint64(cap(buf)) < sz {
			buf = make([]byte, sz)
		}
		if _, err := io.ReadFull(r, buf[:sz]); err != nil {
			return 0, notABackup(path, "it ends inside a list")
		}
		var list pb.KVList
		if err := proto.Unmarshal(buf[:sz], &list); err != nil {
			return 0, notABackup(path, "a list is malformed")
		}
		for _, kv := range list.Kv {
			prefix, id, ok := strings.Cut(string(kv.Key), "/")
			if !ok || prefix == "" || id == "" {
				return 0, notABackup(path, fmt.Sprintf("it holds a key %q that no record has", truncateKey(kv.Key)))
			}
			records++
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return records, nil
}

func truncateKey(k []byte) string {
	if len(k) > 40 {
		k = k[:40]
	}
	return string(k)
}

// loadRecovered is db.Load, with a panic of the loader (a backup it cannot read) as an error.
func loadRecovered(db interface {
	Load(io.Reader, int) error
}, r io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the loader failed: %v", p)
		}
	}()
	return db.Load(r, 64)
}
