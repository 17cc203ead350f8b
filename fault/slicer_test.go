package fault

import "testing"

// MostPieces against toxiproxy's own cuts: with no variation the middle, recursively; with a
// variation the most any draw makes.
func TestMostPieces(t *testing.T) {
	for _, c := range []struct {
		size, variation, n, want int
	}{
		{64, 0, 0, 1}, {64, 0, 64, 1}, {64, 0, 65, 2}, {64, 0, 104, 2}, {64, 0, 129, 3}, // 129: 64 and 65, 65: 32 and 33, {64, 0, 130, 4},
		{1, 0, 104, 104}, {1, 0, 11, 11}, {10, 0, 50, 8}, // 50 -> 25+25 -> 12+13 each -> 6+6, 6+7
		{64, 16, 80, 1}, {64, 16, 81, 2}, {64, 16, 104, 2},
	} {
		f := Fault{Kind: Slicer, Size: c.size, Variation: c.variation}
		if got := f.MostPieces(c.n); got != c.want {
			t.Errorf("slicer %d variation %d: %d bytes in %d pieces at most, want %d", c.size, c.variation, c.n, got, c.want)
		}
	}
	// Against every draw, by brute force, on small chunks.
	for size := 1; size <= 6; size++ {
		for v := 0; v < size; v++ {
			f := Fault{Kind: Slicer, Size: size, Variation: v}
			for n := 0; n <= 40; n++ {
				if got, want := f.MostPieces(n), brutePieces(size, v, n); got != want {
					t.Errorf("slicer %d variation %d, %d bytes: %d pieces, brute force %d", size, v, n, got, want)
				}
			}
		}
	}
}

// brutePieces is toxiproxy's chunk over every draw of rand.Intn(2v)-v, the most pieces.
func brutePieces(size, v, n int) int {
	if n-size <= v {
		return 1
	}
	if v == 0 {
		return brutePieces(size, v, n/2) + brutePieces(size, v, n-n/2)
	}
	best := 0
	for r := 0; r < 2*v; r++ {
		mid := n/2 + r - v
		best = max(best, brutePieces(size, v, mid)+brutePieces(size, v, n-mid))
	}
	return best
}
