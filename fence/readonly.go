package fence

import (
	"time"

	"github.com/failsim/failsim/statemap"
)

// View is a read-only view of an engine: what an observer reads at the end of an instant,
// with no way to step the engine it reads. Its zero value is not usable: get one from
// Engine.View. Each method is the engine's of the same name.
type View struct{ e *Engine }

// View returns a read-only view of e.
func (e *Engine) View() View { return View{e} }

func (v View) Len() int                                                 { return v.e.Len() }
func (v View) Node(i int) NodeView                                      { return v.e.Node(i) }
func (v View) Alarms(dst []AlarmView, i int) []AlarmView                { return v.e.Alarms(dst, i) }
func (v View) AlarmCount(i int) int                                     { return v.e.AlarmCount(i) }
func (v View) Policy() Policy                                           { return v.e.Policy() }
func (v View) Coordinator() int                                         { return v.e.Coordinator() }
func (v View) Master() int                                              { return v.e.Master() }
func (v View) Cluster() Cluster                                         { return v.e.Cluster() }
func (v View) LastOK(i int) bool                                        { return v.e.LastOK(i) }
func (v View) Writable(i int) bool                                      { return v.e.Writable(i) }
func (v View) WritableIn(c, i int) bool                                 { return v.e.WritableIn(c, i) }
func (v View) CoordinatorOf(i int) int                                  { return v.e.CoordinatorOf(i) }
func (v View) CopyOf(i int) int                                         { return v.e.CopyOf(i) }
func (v View) MasterOf(i int) int                                       { return v.e.MasterOf(i) }
func (v View) InView(j int) bool                                        { return v.e.InView(j) }
func (v View) TicksToExpiry() (int64, bool)                             { return v.e.TicksToExpiry() }
func (v View) Steady(i int, c statemap.Condition) (bool, time.Duration) { return v.e.Steady(i, c) }
