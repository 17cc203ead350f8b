package fault

// MostPieces returns the most pieces slicer f cuts a chunk of n bytes into, over every draw of
// its variation: toxiproxy's slicer (toxics/slicer.go, chunk) keeps a piece whole when it is at
// most Size+Variation bytes, and otherwise cuts it at its middle moved by a draw in
// [-Variation, Variation), and cuts each half again. With no variation the cut is the middle and
// the count is exact. n < 1 is one piece (toxiproxy sends an empty chunk as one); f must be a
// slicer (Size > 0, 0 <= Variation < Size).
func (f Fault) MostPieces(n int) int {
	limit := f.Size + f.Variation
	if n <= limit {
		return 1
	}
	// most[m] for every length up to n: a piece of m > limit bytes is cut at m/2+u, with both
	// parts at least (limit+1)/2-Variation > 0 bytes long since Variation < Size.
	most := make([]int, n+1)
	for m := 0; m <= n; m++ {
		if m <= limit {
			most[m] = 1
			continue
		}
		best := 0
		for u := -f.Variation; u < max(f.Variation, 1); u++ {
			mid := m/2 + u
			best = max(best, most[mid]+most[m-mid])
		}
		most[m] = best
	}
	return most[n]
}
