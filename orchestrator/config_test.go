package orchestrator

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fileline"
)

func TestParseDefaults(t *testing.T) {
	c, unknown, err := Parse("o.json", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 0 {
		t.Errorf("unknown = %q, want none", unknown)
	}
	want := "DelayMasterPromotionIfSQLThreadNotUpToDate=false FailMasterPromotionIfSQLThreadNotUpToDate=false FailMasterPromotionOnLagMinutes=0 InstancePollSeconds=5 MySQLConnectTimeoutSeconds=2 MySQLDiscoveryReadTimeoutSeconds=10 PreventCrossDataCenterMasterFailover=false ReasonableInstanceCheckSeconds=1 ReasonableReplicationLagSeconds=10 RecoverMasterClusterFilters=[] RecoveryPeriodBlockSeconds=3600 ReplicationLagQuery=\"\""
	if got := c.String(); got != want {
		t.Errorf("defaults:\n got %s\nwant %s", got, want)
	}
}

func TestParseReadsEveryKey(t *testing.T) {
	data := `{
  "Debug": true,
  "instancepollseconds": 1,
  "ReasonableInstanceCheckSeconds": 3,
  "MySQLConnectTimeoutSeconds": 4,
  "MySQLDiscoveryReadTimeoutSeconds": 6,
  "ReasonableReplicationLagSeconds": 7,
  "RecoveryPeriodBlockSeconds": 0,
  "RecoveryPeriodBlockMinutes": 2,
  "RecoverMasterClusterFilters": ["*"],
  "DelayMasterPromotionIfSQLThreadNotUpToDate": true,
  "FailMasterPromotionOnLagMinutes": 3,
  "SlaveLagQuery": "select 1",
  "PreventCrossDataCenterMasterFailover": true,
  "BackendDB": "sqlite",
  "Debug": false
}`
	c, unknown, err := Parse("o.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		InstancePoll: time.Second, ReasonableInstanceCheck: 3 * time.Second, ConnectTimeout: 4 * time.Second,
		DiscoveryReadTimeout: 6 * time.Second, ReasonableReplicationLag: 7 * time.Second,
		RecoveryPeriodBlock: 120 * time.Second, RecoverMasterClusterFilters: []string{"*"},
		DelayIfSQLThreadNotUpToDate: true, FailOnLag: 3 * time.Minute, ReplicationLagQuery: "select 1",
		PreventCrossDataCenter: true,
	}
	if c.String() != want.String() {
		t.Errorf("got  %s\nwant %s", c, want)
	}
	if strings.Join(unknown, ",") != "Debug,BackendDB" {
		t.Errorf("unknown = %q, want [Debug BackendDB]", unknown)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"{\n  \"InstancePollSeconds\": \"5\"\n}", `o.json:2: InstancePollSeconds: a JSON string where uint belongs`},
		{"{\n\n  \"InstancePollSeconds\": -1\n}", `o.json:3: InstancePollSeconds: a JSON number -1 where uint belongs`},
		{"{\"RecoverMasterClusterFilters\": \"*\"}", `o.json:1: RecoverMasterClusterFilters: a JSON string where []string belongs`},
		{"{\n\"InstancePollSeconds\": 0}", `o.json:2: InstancePollSeconds: 0 would never poll`},
		{"{\n\"MySQLConnectTimeoutSeconds\": -2}", `o.json:2: MySQLConnectTimeoutSeconds: -2: failsim models no negative time`},
		{"{\"FailMasterPromotionIfSQLThreadNotUpToDate\": true,\n\"DelayMasterPromotionIfSQLThreadNotUpToDate\": true}", `o.json:2: DelayMasterPromotionIfSQLThreadNotUpToDate: set with FailMasterPromotionIfSQLThreadNotUpToDate`},
		{"{\n\"FailMasterPromotionOnLagMinutes\": 1}", `o.json:2: FailMasterPromotionOnLagMinutes: above 0 needs ReplicationLagQuery`},
		{"{\"ReplicationLagQuery\": \"a\",\n\"SlaveLagQuery\": \"b\"}", `o.json:2: SlaveLagQuery: a synonym of ReplicationLagQuery`},
		{"[1]", `o.json: not a JSON object`},
		{"{\n\"InstancePollSeconds\": 5,\n", `o.json:2: not valid JSON: the document ends too early`},
		{"", `o.json:1: not valid JSON: the document ends too early`},
		{"{\"a\" 1}", `o.json:1: not valid JSON`},
	} {
		_, _, err := Parse("o.json", []byte(tc.data))
		var fe *fileline.Error
		if !errors.As(err, &fe) {
			t.Errorf("%q: err = %v, want a *fileline.Error", tc.data, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s...", tc.data, err, tc.want)
		}
	}
}

func TestParseNullKeepsDefaults(t *testing.T) {
	c, _, err := Parse("o.json", []byte("null"))
	if err != nil || c.String() != Defaults().String() {
		t.Errorf("null: %v, %v; want the defaults", c, err)
	}
}

func TestParseBounded(t *testing.T) {
	data := []byte("{\"x\": \"" + strings.Repeat("a", ConfigMax) + "\"}")
	_, _, err := Parse("o.json", data)
	if err == nil || !strings.Contains(err.Error(), "over 1048576 bytes") {
		t.Errorf("err = %v, want the cap", err)
	}
}

// FuzzParse: any input is a configuration or a *fileline.Error, never a panic, and a
// configuration polls.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"InstancePollSeconds": 1, "RecoverMasterClusterFilters": ["*"]}`))
	f.Add([]byte(`{"FailMasterPromotionOnLagMinutes": 1, "ReplicationLagQuery": "x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := Parse("f.json", data)
		if err != nil {
			var fe *fileline.Error
			if !errors.As(err, &fe) {
				t.Fatalf("%T %v is not a *fileline.Error", err, err)
			}
			return
		}
		if c.InstancePoll <= 0 || c.ConnectTimeout < 0 || c.RecoveryPeriodBlock < 0 {
			t.Fatalf("parsed %s", c)
		}
	})
}

func TestSettingsQuoteFilters(t *testing.T) {
	c := Defaults()
	c.RecoverMasterClusterFilters = []string{"a b", "*"}
	if got := c.Settings()[9]; got.Key != "RecoverMasterClusterFilters" || got.Value != `["a b","*"]` {
		t.Errorf("got %+v", got)
	}
}
