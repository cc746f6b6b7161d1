package config

import (
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

func TestApprovalSettingsAreChecked(t *testing.T) {
	for name, c := range map[string]Config{
		"unknown policy":   {AppServer: AppServer{Approval: "sometimes"}},
		"negative timeout": {Approvals: Approvals{Timeout: Duration{-time.Second}}},
		"bad owner":        {Approvals: Approvals{Owner: "Not A Client"}},
	} {
		if err := c.Validate(); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	ok := Config{AppServer: AppServer{Approval: model.ApprovalOnRequest}, Approvals: Approvals{Owner: "operator", Timeout: Duration{5 * time.Minute}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}
