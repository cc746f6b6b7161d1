package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/store"
)

// Options are the narrow dependencies of the Service.
type Options struct {
	Home   string
	Store  *store.Store
	Runner Runner
	// Config returns the current config; handoffs read its [handoff] policy on every call, so
	// an edited config.toml applies without a restart.
	Config func() *config.Config
	// Tests returns how test commands run: the codex binary (for its sandbox) and the minimal
	// environment.
	Tests func() (TestEnv, error)
	// Hidden lists the directories no task may read: the codexhost home, the Codex homes.
	Hidden func() []string
	// ProviderKey, when set, says why a provider profile's env_key cannot reach the App
	// Server (nil when it does), so a task start fails with the fix rather than the turn.
	ProviderKey func(name string) error
	Now         func() time.Time
	// After is the clock of task timeouts (time.After unless a test injects one).
	After func(time.Duration) <-chan time.Time
	Log   io.Writer
	// Ended, when set, hears of each task whose outcome was recorded: the turn's end comes
	// before the evidence and the record, so a view read on the turn's end still says running.
	Ended func(task model.ThreadID, status string)
}

// Service is handoffs and their tasks: the methods behind handoff.* and task.*.
type Service struct {
	opts  Options
	files Files

	mu      sync.Mutex
	runs    map[model.ThreadID]*run
	closed  bool
	workers sync.WaitGroup

	actMu sync.Mutex // the skill activations file
}

// New opens the service on a home. A task that was running when the runtime stopped reads
// interrupted from now on, with the reason.
func New(opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Service{opts: opts, files: Files{Home: opts.Home}, runs: map[model.ThreadID]*run{}}
	return s, s.recover()
}

func (s *Service) recover() error {
	var stale []model.ThreadID
	if err := s.opts.Store.Tasks(func(t model.TaskRecord) error {
		if t.Status == model.TaskRunning {
			stale = append(stale, t.ID)
		}
		return nil
	}); err != nil {
		return err
	}
	now := s.opts.Now()
	for _, id := range stale {
		const reason = "the runtime restarted while the task was running; its turn did not finish under codexhost's watch"
		if _, err := s.opts.Store.UpdateTask(id, func(t *model.TaskRecord) error {
			t.Status, t.Reason, t.EndedAt, t.UpdatedAt = model.TaskInterrupted, reason, now, now
			return nil
		}); err != nil {
			return err
		}
		s.trace(TraceEntry{Event: "interrupted", Task: id, Decision: "restart"})
	}
	return nil
}

// Close waits for the evidence of turns that already ended; running turns are the harness's.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	for _, r := range s.runs {
		r.stop()
	}
	s.mu.Unlock()
	s.workers.Wait()
}

func (s *Service) policy() config.Handoff { return s.opts.Config().Handoff }

func (s *Service) hidden() []string {
	if s.opts.Hidden == nil {
		return []string{s.opts.Home}
	}
	return s.opts.Hidden()
}

// CallerName is how records and traces name a caller: runtime, or client:NAME.
func CallerName(c api.Caller) string {
	if c.Kind == api.CallerClient || c.Kind == api.CallerNode {
		return model.ClientRecipientPrefix + c.Client
	}
	return c.Kind
}

// IsOperator reports whether the caller is the home's own operator client.
func IsOperator(c api.Caller) bool {
	return c.Kind == api.CallerClient && c.Client == config.OperatorClient
}

func (s *Service) trace(e TraceEntry) {
	if e.At.IsZero() {
		e.At = s.opts.Now()
	}
	if err := s.files.appendTrace(e); err != nil {
		fmt.Fprintf(s.opts.Log, "task trace %s: %v\n", e.Task, err)
	}
}

// Create validates a handoff, checks it against the policy, routes its skills and persists it.
// It runs nothing. On any refusal nothing is written.
func (s *Service) Create(ctx context.Context, caller api.Caller, p api.HandoffCreateParams) (api.HandoffCreateResult, error) {
	start := time.Now()
	if len(p.Handoff) == 0 {
		return api.HandoffCreateResult{}, model.Errorf(model.CodeInvalidArgument, "pass the handoff object as params.handoff", "no handoff given")
	}
	h, err := model.DecodeHandoff(p.Handoff)
	if err != nil {
		return api.HandoffCreateResult{}, err
	}
	pol := s.policy()
	place, err := Resolve(pol, h)
	if err != nil {
		return api.HandoffCreateResult{}, err
	}
	routing, err := s.routeSkills(pol, &h)
	if err != nil {
		return api.HandoffCreateResult{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return api.HandoffCreateResult{}, err
	}
	hid := "handoff_" + id.String()
	now := s.opts.Now()
	if err := writeJSON(s.files.HandoffPath(hid), h); err != nil {
		return api.HandoffCreateResult{}, model.Errorf(model.CodeInternal, "check the home's permissions and free space", "write the handoff file: %v", err)
	}
	if err := writeJSON(s.files.skillsPath(hid), routing); err != nil {
		return api.HandoffCreateResult{}, err
	}
	rec := model.HandoffRecord{V: 1, ID: hid, Risk: h.RiskLevel, Operations: slices.Clone(h.AllowedOperations), Root: place.Root, CreatedBy: CallerName(caller), CreatedAt: now, UpdatedAt: now}
	if err := s.opts.Store.PutHandoff(rec); err != nil {
		return api.HandoffCreateResult{}, err
	}
	sum := s.summary(rec, h, place.Dir, routing)
	return api.HandoffCreateResult{HandoffID: hid, HandoffFile: sum.HandoffFile, Handoff: sum, SkillRecommendations: apiRecs(routing),
		LatencyMs: float64(time.Since(start).Microseconds()) / 1000}, nil
}

// routeSkills fills skillContext from the approved skill roots when the handoff has a skillTask.
func (s *Service) routeSkills(pol config.Handoff, h *model.Handoff) (SkillRouting, error) {
	root, err := ResolveSkillRoot(pol, h.SkillRoot)
	if err != nil {
		return SkillRouting{}, err
	}
	routing := SkillRouting{Root: root, Recommendations: []Recommendation{}, Activations: []Activation{}}
	if h.SkillTask == "" || root == "" {
		if h.SkillTask != "" {
			return routing, model.Errorf(model.CodeFailedPrecondition, "configure handoff.skill_roots in config.toml, or leave skillTask out", "skillTask needs an approved skill root and none is configured")
		}
		return routing, nil
	}
	routing.Recommendations = Route(LoadSkills(root), h.SkillTask, h.SkillLimit())
	for _, r := range routing.Recommendations {
		if len(h.SkillContext) >= model.MaxSkillContextItems {
			break
		}
		h.SkillContext = append(h.SkillContext, r.ContextLine())
		routing.Activations = append(routing.Activations, Activation{Skill: r.Skill.Name})
	}
	routing.Activations = s.withActivations(routing) // recorded as they stand at create
	return routing, h.Validate()
}

func apiRecs(r SkillRouting) []api.SkillRecommendation {
	out := make([]api.SkillRecommendation, 0, len(r.Recommendations))
	for _, rec := range r.Recommendations {
		out = append(out, api.SkillRecommendation{Name: rec.Skill.Name, Description: rec.Skill.Description, File: rec.Skill.File, Score: rec.Score, Reason: rec.Reason})
	}
	return out
}

func (s *Service) summary(rec model.HandoffRecord, h model.Handoff, dir string, routing SkillRouting) api.HandoffSummary {
	acts := make([]api.SkillActivation, 0, len(routing.Activations))
	for _, a := range s.withActivations(routing) {
		acts = append(acts, api.SkillActivation{Skill: a.Skill, Activated: a.Activated, ActivationID: a.ActivationID})
	}
	return api.HandoffSummary{HandoffID: rec.ID, Title: h.Title, RiskLevel: rec.Risk, RiskFloor: AssessRisk(h).Floor, Operations: rec.Operations, Root: rec.Root, Dir: dir,
		Goal: h.Goal(), HandoffFile: s.files.HandoffPath(rec.ID), SkillActivations: acts, CreatedBy: rec.CreatedBy, CreatedAt: rec.CreatedAt}
}

// load reads a handoff's record, file and routing.
func (s *Service) load(id string) (model.HandoffRecord, model.Handoff, SkillRouting, error) {
	if !ValidHandoffID(id) {
		return model.HandoffRecord{}, model.Handoff{}, SkillRouting{}, unknownHandoff(id)
	}
	rec, err := s.opts.Store.Handoff(id)
	if errors.Is(err, store.ErrNotFound) {
		return rec, model.Handoff{}, SkillRouting{}, unknownHandoff(id)
	}
	if err != nil {
		return rec, model.Handoff{}, SkillRouting{}, err
	}
	h, err := s.files.ReadHandoff(id)
	if err != nil {
		return rec, h, SkillRouting{}, err
	}
	var routing SkillRouting
	_ = readJSON(s.files.skillsPath(id), &routing)
	return rec, h, routing, nil
}

// linked is the summary of a handoff for a task; nil when it cannot be read.
func (s *Service) linked(id string) *api.HandoffSummary {
	rec, h, routing, err := s.load(id)
	if err != nil {
		return nil
	}
	dir := h.ProjectPath
	if p, err := Resolve(s.policy(), h); err == nil {
		dir = p.Dir
	}
	sum := s.summary(rec, h, dir, routing)
	return &sum
}

// Show returns a handoff in full.
func (s *Service) Show(ctx context.Context, caller api.Caller, p api.HandoffShowParams) (api.HandoffShowResult, error) {
	rec, h, routing, err := s.load(p.HandoffID)
	if err != nil {
		return api.HandoffShowResult{}, err
	}
	sum := s.linked(rec.ID)
	if sum == nil {
		return api.HandoffShowResult{}, unknownHandoff(p.HandoffID)
	}
	return api.HandoffShowResult{Summary: *sum, Handoff: h, SkillRecommendations: apiRecs(routing)}, nil
}

// List lists handoffs, newest first.
//
// owner, when set, keeps the list to the handoffs that caller created ("client:NAME").
func (s *Service) List(ctx context.Context, caller api.Caller, p api.HandoffListParams, owner string) (api.HandoffListResult, error) {
	limit, err := checkLimit(p.Limit)
	if err != nil {
		return api.HandoffListResult{}, err
	}
	var recs []model.HandoffRecord
	if err := s.opts.Store.Handoffs(func(r model.HandoffRecord) error {
		if owner == "" || r.CreatedBy == owner {
			recs = append(recs, r)
		}
		return nil
	}); err != nil {
		return api.HandoffListResult{}, err
	}
	slices.SortFunc(recs, func(a, b model.HandoffRecord) int { return b.CreatedAt.Compare(a.CreatedAt) })
	out := api.HandoffListResult{Handoffs: []api.HandoffSummary{}}
	for _, r := range recs {
		if len(out.Handoffs) >= limit {
			break
		}
		if sum := s.linked(r.ID); sum != nil {
			out.Handoffs = append(out.Handoffs, *sum)
		}
	}
	return out, nil
}

func checkLimit(n int) (int, error) {
	if n == 0 {
		return 20, nil
	}
	if n < 1 || n > 100 {
		return 0, model.Errorf(model.CodeInvalidArgument, "give a limit from 1 to 100 (default 20)", "invalid limit %d", n)
	}
	return n, nil
}
