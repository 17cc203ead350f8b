package proxy

import (
	"io"
	"math/rand/v2"

	"github.com/failsim/failsim/fault"
)

// slicer is toxiproxy's slicer (toxics/slicer.go): each chunk of its stream is cut in halves
// until a piece is at most Size + Variation bytes, each cut moved by a draw from
// [-Variation, +Variation), and the pieces go one at a time, Delay after each.
type slicer struct {
	f   fault.Fault
	rng *rand.Rand
}

func (*slicer) kind() fault.Kind { return fault.Slicer }

func (s *slicer) fresh(rng *rand.Rand, _ wireFault) wireFault { return &slicer{f: s.f, rng: rng} }

func (s *slicer) shapes(d direction) bool { return d == dirOf(s.f.Stream) }

func (s *slicer) write(c *conn, _ direction, w io.Writer, p []byte) error {
	c.injected(fault.Slicer)
	cuts := s.cut(nil, 0, len(p))
	for i := 1; i < len(cuts); i += 2 {
		if _, err := w.Write(p[cuts[i-1]:cuts[i]]); err != nil {
			return err
		}
		if s.f.Delay > 0 && !c.sleep(s.f.Delay, otherWaiter) {
			return errConnDone
		}
	}
	return nil
}

// cut appends the pieces of [start, end) as pairs of offsets, as toxiproxy's chunk does. Size
// > Variation >= 0 (Toxic.validate, fault.Parse) keeps every cut inside its span.
func (s *slicer) cut(to []int, start, end int) []int {
	v := s.f.Variation
	if (end-start)-s.f.Size <= v {
		return append(to, start, end)
	}
	mid := start + (end-start)/2
	if v > 0 && s.rng != nil {
		mid += s.rng.IntN(2*v) - v
	}
	to = s.cut(to, start, mid)
	return s.cut(to, mid, end)
}
