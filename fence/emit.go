package fence

// decisions holds the decisions of one Ready batch, one slice per kind, reused from batch to
// batch so that deciding allocates nothing once they have grown. Engine.out points into them.
type decisions struct {
	stateChanged        []StateChanged
	alarmRaised         []AlarmRaised
	alarmExpired        []AlarmExpired
	alarmHealed         []AlarmHealed
	alarmCleared        []AlarmCleared
	expiryWaiting       []ExpiryWaiting
	logged              []Logged
	alertNotImplemented []AlertNotImplemented
	alreadyFailed       []AlreadyFailed
	nodeFailed          []NodeFailed
	failover            []Failover
	noCandidate         []NoCandidate
	nodeRecovered       []NodeRecovered
	recoverIgnored      []RecoverIgnored
	policyChanged       []PolicyChanged
	managerDown         []ManagerDown
	managerUp           []ManagerUp
	coordinatorChanged  []CoordinatorChanged
	recoverRefused      []RecoverRefused
	failsafeShunned     []FailsafeShunned
	copiesMerged        []CopiesMerged
}

// reset empties every slice, keeping its room. The pointers handed out before go stale.
func (d *decisions) reset() {
	d.stateChanged = d.stateChanged[:0]
	d.alarmRaised = d.alarmRaised[:0]
	d.alarmExpired = d.alarmExpired[:0]
	d.alarmHealed = d.alarmHealed[:0]
	d.alarmCleared = d.alarmCleared[:0]
	d.expiryWaiting = d.expiryWaiting[:0]
	d.logged = d.logged[:0]
	d.alertNotImplemented = d.alertNotImplemented[:0]
	d.alreadyFailed = d.alreadyFailed[:0]
	d.nodeFailed = d.nodeFailed[:0]
	d.failover = d.failover[:0]
	d.noCandidate = d.noCandidate[:0]
	d.nodeRecovered = d.nodeRecovered[:0]
	d.recoverIgnored = d.recoverIgnored[:0]
	d.policyChanged = d.policyChanged[:0]
	d.managerDown = d.managerDown[:0]
	d.managerUp = d.managerUp[:0]
	d.coordinatorChanged = d.coordinatorChanged[:0]
	d.recoverRefused = d.recoverRefused[:0]
	d.failsafeShunned = d.failsafeShunned[:0]
	d.copiesMerged = d.copiesMerged[:0]
}

// emit stores decision v in its kind's slice buf and appends a pointer to it to e.out. A slice
// that grows leaves the pointers already handed out on its old array, whose values stay.
func emit[T any, P interface {
	*T
	Decision
}](e *Engine, buf *[]T, v T) {
	*buf = append(*buf, v)
	e.out = append(e.out, P(&(*buf)[len(*buf)-1]))
}
