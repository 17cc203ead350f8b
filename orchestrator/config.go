package orchestrator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/fileline"
)

// ConfigMax is the cap, in bytes, on an orchestrator.conf.json that Parse reads: 1 MiB, as
// failsim caps its other configuration files.
const ConfigMax = 1 << 20

// Config is the part of Orchestrator's configuration (go/config/config.go) that failsim models.
// The zero value is not Orchestrator's: start from Defaults. Every duration is Orchestrator's
// whole seconds (or minutes) as a time.Duration.
type Config struct {
	// InstancePoll is InstancePollSeconds: the time between two reads of an instance
	// (config.go:142, default 5 s at :326). Never 0 after Parse.
	InstancePoll time.Duration
	// ReasonableInstanceCheck is ReasonableInstanceCheckSeconds: how much longer than
	// InstancePoll a read may be under way before the last check is invalid (config.go:143,
	// default 1 s at :327).
	ReasonableInstanceCheck time.Duration
	// ConnectTimeout is MySQLConnectTimeoutSeconds: the driver's dial timeout of a read
	// (config.go:132, default 2 s at :318; db/db.go:89 puts it in the DSN as timeout=).
	ConnectTimeout time.Duration
	// DiscoveryReadTimeout is MySQLDiscoveryReadTimeoutSeconds: the driver's read timeout of a
	// read's queries (config.go:133, default 10 s at :321; db/db.go:80,89 readTimeout=).
	DiscoveryReadTimeout time.Duration
	// ReasonableReplicationLag is ReasonableReplicationLagSeconds: a replica whose lag is over
	// it counts as lagging in the analysis (config.go:161, default 10 s at :347;
	// inst/analysis_dao.go:58, :339).
	ReasonableReplicationLag time.Duration
	// RecoveryPeriodBlock is RecoveryPeriodBlockSeconds, or RecoveryPeriodBlockMinutes when the
	// seconds are 0 (config.go:230, :508-513): the anti-flap block after a recovery in a
	// cluster (default 3600 s at :409).
	RecoveryPeriodBlock time.Duration
	// RecoverMasterClusterFilters are the clusters whose dead masters Orchestrator recovers
	// (config.go:232, default none at :411): "*", a regexp of the cluster name, alias=NAME or
	// alias~=REGEXP (inst/cluster.go:98-125). None: no automated master recovery.
	RecoverMasterClusterFilters []string
	// FailIfSQLThreadNotUpToDate is FailMasterPromotionIfSQLThreadNotUpToDate (config.go:255,
	// default false at :432).
	FailIfSQLThreadNotUpToDate bool
	// DelayIfSQLThreadNotUpToDate is DelayMasterPromotionIfSQLThreadNotUpToDate (config.go:256,
	// default false at :433).
	DelayIfSQLThreadNotUpToDate bool
	// FailOnLag is FailMasterPromotionOnLagMinutes: a promotion fails when the candidate lags
	// that much or more; 0 never (config.go:254, default 0 at :431).
	FailOnLag time.Duration
	// ReplicationLagQuery is ReplicationLagQuery (or its synonym SlaveLagQuery): failsim only
	// reads whether it is set, which FailOnLag requires (config.go:138, :515-526, :543-545).
	ReplicationLagQuery string
	// PreventCrossDataCenter is PreventCrossDataCenterMasterFailover: never promote a replica of
	// another data centre than the failed master's (config.go:249, default false at :427).
	PreventCrossDataCenter bool
}

// Defaults returns Orchestrator's defaults for the settings Config holds (config.go:312-455,
// newConfiguration).
func Defaults() Config {
	return Config{
		InstancePoll:             5 * time.Second,
		ReasonableInstanceCheck:  1 * time.Second,
		ConnectTimeout:           2 * time.Second,
		DiscoveryReadTimeout:     10 * time.Second,
		ReasonableReplicationLag: 10 * time.Second,
		RecoveryPeriodBlock:      3600 * time.Second,
	}
}

// file is the JSON object as Orchestrator decodes it into its Configuration: these fields have
// Orchestrator's names and Go types (config.go:95-300), so encoding/json matches keys and
// rejects wrong types exactly as Orchestrator's decoder.Decode(Config) does (config.go:642-643).
type file struct {
	InstancePollSeconds                        uint
	ReasonableInstanceCheckSeconds             uint
	MySQLConnectTimeoutSeconds                 int
	MySQLDiscoveryReadTimeoutSeconds           int
	ReasonableReplicationLagSeconds            int
	RecoveryPeriodBlockMinutes                 int
	RecoveryPeriodBlockSeconds                 int
	RecoverMasterClusterFilters                []string
	FailMasterPromotionIfSQLThreadNotUpToDate  bool
	DelayMasterPromotionIfSQLThreadNotUpToDate bool
	FailMasterPromotionOnLagMinutes            uint
	ReplicationLagQuery                        string
	SlaveLagQuery                              string
	PreventCrossDataCenterMasterFailover       bool
}

// Keys returns the configuration keys failsim models, in Orchestrator's spelling, sorted: a
// fresh slice each call.
func Keys() []string { return append([]string(nil), keys...) }

// keys are Keys'.
var keys = []string{
	"DelayMasterPromotionIfSQLThreadNotUpToDate",
	"FailMasterPromotionIfSQLThreadNotUpToDate",
	"FailMasterPromotionOnLagMinutes",
	"InstancePollSeconds",
	"MySQLConnectTimeoutSeconds",
	"MySQLDiscoveryReadTimeoutSeconds",
	"PreventCrossDataCenterMasterFailover",
	"ReasonableInstanceCheckSeconds",
	"ReasonableReplicationLagSeconds",
	"RecoverMasterClusterFilters",
	"RecoveryPeriodBlockMinutes",
	"RecoveryPeriodBlockSeconds",
	"ReplicationLagQuery",
	"SlaveLagQuery",
}

// Parse reads data, the orchestrator.conf.json named name, as Orchestrator reads it: one JSON
// object decoded over the defaults (a key left out keeps its default; keys match in any case,
// as encoding/json matches them), then Orchestrator's adjustments and checks of those keys
// (config.go:508-545). It returns the configuration and the keys of the object that failsim
// does not model, in file order (Orchestrator knows many of them; failsim ignores them all, as
// Orchestrator ignores keys it does not know). Bad input is a *fileline.Error: not JSON, not
// an object, a value of the wrong type (naming the key), a setting Orchestrator rejects, or
// more than ConfigMax bytes.
func Parse(name string, data []byte) (Config, []string, error) {
	if len(data) > ConfigMax {
		return Config{}, nil, fileline.Errorf(name, 0, "over %d bytes: an orchestrator.conf.json is far smaller", ConfigMax)
	}
	d := Defaults()
	f := file{
		InstancePollSeconds:              5,
		ReasonableInstanceCheckSeconds:   1,
		MySQLConnectTimeoutSeconds:       2,
		MySQLDiscoveryReadTimeoutSeconds: 10,
		ReasonableReplicationLagSeconds:  10,
		RecoveryPeriodBlockMinutes:       60,
		RecoveryPeriodBlockSeconds:       3600,
	}
	unknown, err := unknownKeys(data)
	if err != nil {
		return Config{}, nil, fileline.JSON(name, data, err)
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&f); err != nil {
		return Config{}, nil, fileline.JSON(name, data, err)
	}
	at := func(key string) int { return fileline.JSONLine(data, key) }
	bad := func(key, format string, args ...any) error {
		return fileline.Errorf(name, at(key), key+": "+format, args...)
	}
	if f.InstancePollSeconds == 0 {
		return Config{}, nil, bad("InstancePollSeconds", "0 would never poll (time.Tick of 0 never fires: go/logic/orchestrator.go:494); want 1 or more")
	}
	for _, k := range []struct {
		key string
		v   int
	}{
		{"MySQLConnectTimeoutSeconds", f.MySQLConnectTimeoutSeconds},
		{"MySQLDiscoveryReadTimeoutSeconds", f.MySQLDiscoveryReadTimeoutSeconds},
		{"ReasonableReplicationLagSeconds", f.ReasonableReplicationLagSeconds},
		{"RecoveryPeriodBlockMinutes", f.RecoveryPeriodBlockMinutes},
		{"RecoveryPeriodBlockSeconds", f.RecoveryPeriodBlockSeconds},
	} {
		if k.v < 0 {
			return Config{}, nil, bad(k.key, "%d: failsim models no negative time; want 0 or more", k.v)
		}
	}
	// config.go:508-513: the minutes stand in for the seconds only when the seconds are 0.
	block := f.RecoveryPeriodBlockSeconds
	if block == 0 && f.RecoveryPeriodBlockMinutes > 0 {
		block = f.RecoveryPeriodBlockMinutes * 60
	}
	// config.go:515-526: SlaveLagQuery is ReplicationLagQuery's synonym.
	if f.ReplicationLagQuery != "" && f.SlaveLagQuery != "" && f.ReplicationLagQuery != f.SlaveLagQuery {
		return Config{}, nil, bad("SlaveLagQuery", "a synonym of ReplicationLagQuery, and both are set, differently (Orchestrator refuses it: config.go:516-517)")
	}
	if f.ReplicationLagQuery == "" {
		f.ReplicationLagQuery = f.SlaveLagQuery
	}
	if f.FailMasterPromotionIfSQLThreadNotUpToDate && f.DelayMasterPromotionIfSQLThreadNotUpToDate {
		return Config{}, nil, bad("DelayMasterPromotionIfSQLThreadNotUpToDate", "set with FailMasterPromotionIfSQLThreadNotUpToDate, and Orchestrator refuses both (config.go:540-541)")
	}
	if f.FailMasterPromotionOnLagMinutes > 0 && f.ReplicationLagQuery == "" {
		return Config{}, nil, bad("FailMasterPromotionOnLagMinutes", "above 0 needs ReplicationLagQuery, and Orchestrator refuses it without (config.go:543-544)")
	}
	d.InstancePoll = time.Duration(f.InstancePollSeconds) * time.Second
	d.ReasonableInstanceCheck = time.Duration(f.ReasonableInstanceCheckSeconds) * time.Second
	d.ConnectTimeout = time.Duration(f.MySQLConnectTimeoutSeconds) * time.Second
	d.DiscoveryReadTimeout = time.Duration(f.MySQLDiscoveryReadTimeoutSeconds) * time.Second
	d.ReasonableReplicationLag = time.Duration(f.ReasonableReplicationLagSeconds) * time.Second
	d.RecoveryPeriodBlock = time.Duration(block) * time.Second
	d.RecoverMasterClusterFilters = f.RecoverMasterClusterFilters
	d.FailIfSQLThreadNotUpToDate = f.FailMasterPromotionIfSQLThreadNotUpToDate
	d.DelayIfSQLThreadNotUpToDate = f.DelayMasterPromotionIfSQLThreadNotUpToDate
	d.FailOnLag = time.Duration(f.FailMasterPromotionOnLagMinutes) * time.Minute
	d.ReplicationLagQuery = f.ReplicationLagQuery
	d.PreventCrossDataCenter = f.PreventCrossDataCenterMasterFailover
	return d, unknown, nil
}

// unknownKeys returns the top-level keys of data, one JSON object, that no field of file
// takes, in file order, each once.
func unknownKeys(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil // null: Orchestrator's Decode changes nothing
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object: an orchestrator.conf.json is one object of settings")
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !known(key) && !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	return out, nil
}

// known reports whether key names a field of file, in encoding/json's case-insensitive match.
func known(key string) bool {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// Setting is one modelled key and its value as failsim shows it.
type Setting struct {
	Key, Value string
}

// Settings returns each modelled key with its value, in Keys' order (SlaveLagQuery folded
// into ReplicationLagQuery, the minutes into RecoveryPeriodBlockSeconds).
func (c Config) Settings() []Setting {
	sec := func(d time.Duration) string { return fmt.Sprint(int64(d / time.Second)) }
	filters := "[]"
	if len(c.RecoverMasterClusterFilters) > 0 {
		q := make([]string, len(c.RecoverMasterClusterFilters))
		for i, f := range c.RecoverMasterClusterFilters {
			q[i] = fmt.Sprintf("%q", f)
		}
		filters = "[" + strings.Join(q, ",") + "]"
	}
	return []Setting{
		{"DelayMasterPromotionIfSQLThreadNotUpToDate", fmt.Sprint(c.DelayIfSQLThreadNotUpToDate)},
		{"FailMasterPromotionIfSQLThreadNotUpToDate", fmt.Sprint(c.FailIfSQLThreadNotUpToDate)},
		{"FailMasterPromotionOnLagMinutes", fmt.Sprint(int64(c.FailOnLag / time.Minute))},
		{"InstancePollSeconds", sec(c.InstancePoll)},
		{"MySQLConnectTimeoutSeconds", sec(c.ConnectTimeout)},
		{"MySQLDiscoveryReadTimeoutSeconds", sec(c.DiscoveryReadTimeout)},
		{"PreventCrossDataCenterMasterFailover", fmt.Sprint(c.PreventCrossDataCenter)},
		{"ReasonableInstanceCheckSeconds", sec(c.ReasonableInstanceCheck)},
		{"ReasonableReplicationLagSeconds", sec(c.ReasonableReplicationLag)},
		{"RecoverMasterClusterFilters", filters},
		{"RecoveryPeriodBlockSeconds", sec(c.RecoveryPeriodBlock)},
		{"ReplicationLagQuery", fmt.Sprintf("%q", c.ReplicationLagQuery)},
	}
}

// String is the configuration as failsim shows it: KEY=VALUE for each of Settings, spaced.
func (c Config) String() string {
	var b strings.Builder
	for i, s := range c.Settings() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.Key + "=" + s.Value)
	}
	return b.String()
}
