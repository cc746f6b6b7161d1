package store

import (
	"fmt"
	"path/filepath"
	"testing"
)

func benchStore(b *testing.B) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "home"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func BenchmarkPut(b *testing.B) {
	s := benchStore(b)
	rec := delegationV1{Record: Record{V: 1}, Parent: "019a0000-0000-7000-8000-000000000000"}
	for i := 0; b.Loop(); i++ {
		if err := s.Put("deleg", fmt.Sprint(i), rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPutSync(b *testing.B) {
	s := benchStore(b)
	rec := delegationV1{Record: Record{V: 1}, Parent: "019a0000-0000-7000-8000-000000000000"}
	for i := 0; b.Loop(); i++ {
		if err := s.PutSync("deleg", fmt.Sprint(i), rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s := benchStore(b)
	const n = 1000
	for i := range n {
		rec := delegationV2{Record: Record{V: 2}, Parent: "p", Deadline: "2030-01-01T00:00:00Z"}
		if err := s.Put("deleg", fmt.Sprint(i), rec); err != nil {
			b.Fatal(err)
		}
	}
	var v delegationV1
	for i := 0; b.Loop(); i++ {
		if err := s.Get("deleg", fmt.Sprint(i%n), &v); err != nil {
			b.Fatal(err)
		}
	}
}
