package model

import (
	"math"
	"testing"
	"time"
)

func TestClampMillis(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want time.Duration
	}{
		{0, 0},
		{1500, 1500 * time.Millisecond},
		{int64(time.Hour / time.Millisecond), time.Hour},
		{int64(time.Hour/time.Millisecond) + 1, time.Hour},
		{math.MaxInt64, time.Hour},
		{-5, -5 * time.Millisecond},
	} {
		if got := ClampMillis(tc.ms, time.Hour); got != tc.want {
			t.Errorf("ClampMillis(%d, 1h) = %v, want %v", tc.ms, got, tc.want)
		}
	}
}

func FuzzClampMillis(f *testing.F) {
	for _, ms := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 3_600_000, 3_600_001} {
		f.Add(ms)
	}
	f.Fuzz(func(t *testing.T, ms int64) {
		got := ClampMillis(ms, time.Hour)
		if got > time.Hour || (ms >= 0 && got < 0) {
			t.Fatalf("ClampMillis(%d) = %v", ms, got)
		}
	})
}
