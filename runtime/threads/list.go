package threads

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// nativeListPages bounds how much of the App Server's catalog one list call reads.
const nativeListPages = 5

type listRow struct {
	info    model.ThreadInfo
	recency time.Time
}

type listCursor struct {
	Key int64  `json:"k"`
	ID  string `json:"i"`
}

// List returns one page of threads, native and external, filtered by cwd, parent,
// client or ref (the last three from the delegation records).
//
// visible, when set, keeps only the threads the caller may see (principal.go).
func (s *Service) List(ctx context.Context, caller api.Caller, p api.ThreadListParams, visible func(model.ThreadID) bool) (api.ThreadListResult, error) {
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return api.ThreadListResult{}, err
	}
	sortBy := p.Sort
	if sortBy == "" {
		sortBy = "created-desc"
	}
	if !slices.Contains(api.SortOrders, sortBy) {
		return api.ThreadListResult{}, model.Errorf(model.CodeInvalidArgument, "use one of: "+strings.Join(api.SortOrders, ", "), "unknown sort %q", p.Sort)
	}
	var after *listCursor
	if p.Cursor != "" {
		c, err := decodeListCursor(p.Cursor)
		if err != nil {
			return api.ThreadListResult{}, err
		}
		after = &c
	}
	cwd := p.Cwd
	if cwd == "" && !p.AnyCwd && caller.Kind != api.CallerClient {
		cwd = p.Caller.Cwd
	}
	if cwd != "" {
		cwd = filepath.Clean(cwd)
	}

	ids, filtered, err := s.filteredThreads(p)
	if err != nil {
		return api.ThreadListResult{}, err
	}
	rows, err := s.listRows(ctx, ids, filtered)
	if err != nil {
		return api.ThreadListResult{}, err
	}
	if cwd != "" {
		rows = slices.DeleteFunc(rows, func(r listRow) bool { return filepath.Clean(r.info.Cwd) != cwd })
	}
	if visible != nil {
		rows = slices.DeleteFunc(rows, func(r listRow) bool { return !visible(model.ThreadID(r.info.ID)) })
	}
	if p.OutsideCatalog {
		rows = slices.DeleteFunc(rows, func(r listRow) bool { return s.opts.Supervised.InCatalog(model.ThreadID(r.info.ID), r.info.Harness) })
	}
	order := listOrder(sortBy)
	slices.SortFunc(rows, order.compare)
	if after != nil {
		rows = slices.DeleteFunc(rows, func(r listRow) bool { return !order.less(after.Key, after.ID, order.key(r), r.info.ID) })
	}
	res := api.ThreadListResult{Threads: []model.ThreadInfo{}}
	for i, r := range rows {
		if i == limit {
			last := rows[i-1]
			res.NextCursor = encodeListCursor(listCursor{Key: order.key(last), ID: last.info.ID})
			break
		}
		res.Threads = append(res.Threads, r.info)
	}
	s.withLastTurns(ctx, res.Threads)
	for i := range res.Threads {
		s.Decorate(&res.Threads[i])
	}
	return res, nil
}

// lastTurnReaders bounds the reads withLastTurns runs at once.
const lastTurnReaders = 8

// withLastTurns gives the native rows of a page their latest turn: the App Server's catalog
// rows carry none, and without it a finished thread would read "creating" in the list while
// `thread read` says "completed". Only the page shown is read.
func (s *Service) withLastTurns(ctx context.Context, infos []model.ThreadInfo) {
	native := s.deps.Harnesses.Native()
	sem := make(chan struct{}, lastTurnReaders)
	var wg sync.WaitGroup
	for i := range infos {
		info := &infos[i]
		if info.Harness != model.NativeHarness || info.LastTurn != nil || native == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if snap, err := native.Read(ctx, model.ThreadID(info.ID), harness.ReadRequest{}); err == nil && snap.Info.LastTurn != nil {
				info.LastTurn = snap.Info.LastTurn
			}
		}()
	}
	wg.Wait()
}

// rowOrder is a --sort order: a time field, ascending or descending, ties broken by id.
type rowOrder struct {
	field string // created, updated or recency
	desc  bool
}

func listOrder(sortBy string) rowOrder {
	field, dir, _ := strings.Cut(sortBy, "-")
	return rowOrder{field: field, desc: dir == "desc"}
}

func (o rowOrder) key(r listRow) int64 {
	switch o.field {
	case "updated":
		return r.info.UpdatedAt.UnixNano()
	case "recency":
		return r.recency.UnixNano()
	}
	return r.info.CreatedAt.UnixNano()
}

func (o rowOrder) less(ka int64, ida string, kb int64, idb string) bool {
	if ka != kb {
		if o.desc {
			return ka > kb
		}
		return ka < kb
	}
	if o.desc {
		return ida > idb
	}
	return ida < idb
}

func (o rowOrder) compare(a, b listRow) int {
	switch {
	case o.less(o.key(a), a.info.ID, o.key(b), b.info.ID):
		return -1
	case o.less(o.key(b), b.info.ID, o.key(a), a.info.ID):
		return 1
	}
	return 0
}

// filteredThreads resolves --parent/--client/--ref from the records. filtered is false when
// no such filter was given (every thread is a candidate).
func (s *Service) filteredThreads(p api.ThreadListParams) ([]model.ThreadID, bool, error) {
	var sets [][]model.ThreadID
	if p.Parent != "" {
		parent, err := model.ParseThreadID(p.Parent)
		if err != nil {
			return nil, true, err
		}
		ids, err := s.deps.Store.ChildrenOf(parent)
		if err != nil {
			return nil, true, err
		}
		sets = append(sets, ids)
	}
	if p.Client != "" {
		ids, err := s.deps.Store.ThreadsOfClient(p.Client)
		if err != nil {
			return nil, true, err
		}
		sets = append(sets, ids)
	}
	if p.Ref != "" {
		ref, err := model.NormalizeRef(p.Ref)
		if err != nil {
			return nil, true, err
		}
		ids, err := s.deps.Store.ThreadsWithRef(ref)
		if err != nil {
			return nil, true, err
		}
		sets = append(sets, ids)
	}
	if len(sets) == 0 {
		return nil, false, nil
	}
	out := sets[0]
	for _, s := range sets[1:] {
		out = slices.DeleteFunc(slices.Clone(out), func(id model.ThreadID) bool { return !slices.Contains(s, id) })
	}
	return out, true, nil
}

// listRows builds rows for the candidates: the given ids when filtered, else every registered
// thread plus the App Server's catalog.
func (s *Service) listRows(ctx context.Context, ids []model.ThreadID, filtered bool) ([]listRow, error) {
	seen := map[string]bool{}
	var rows []listRow
	native := map[string]appserver.Thread{}
	if !filtered {
		if threads, err := s.nativeCatalog(ctx); err == nil {
			for _, th := range threads {
				native[th.ID] = th
			}
		} else if !model.IsCode(err, model.CodeAppServerUnavailable) {
			return nil, err
		}
		if err := s.deps.Store.Threads(func(rec model.ThreadRecord) error {
			ids = append(ids, rec.ID)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		if seen[string(id)] {
			continue
		}
		seen[string(id)] = true
		rec, err := s.deps.Store.Thread(id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if th, ok := native[string(id)]; ok {
			if !s.opts.Supervised.Canonical(id) {
				rows = append(rows, listRow{info: harness.NativeThreadInfo(th), recency: recencyOf(th)})
			}
			continue
		}
		hs, err := s.Harness(ctx, id)
		if err != nil {
			continue // a recorded thread whose harness lost it: nothing to show
		}
		snap, err := hs.Read(ctx, id, harness.ReadRequest{})
		if err != nil {
			continue
		}
		recency := rec.RecencyAt
		if recency.IsZero() {
			recency = snap.Info.UpdatedAt
		}
		rows = append(rows, listRow{info: snap.Info, recency: recency})
	}
	for id, th := range native {
		if !seen[id] && !s.opts.Supervised.Canonical(model.ThreadID(id)) {
			rows = append(rows, listRow{info: harness.NativeThreadInfo(th), recency: recencyOf(th)})
		}
	}
	return rows, nil
}

// nativeCatalog reads the App Server's stored threads (state database only: fast, and it
// reads no rollout files).
func (s *Service) nativeCatalog(ctx context.Context) ([]appserver.Thread, error) {
	client, err := s.deps.Harnesses.Native().Client(ctx)
	if err != nil {
		return nil, err
	}
	var out []appserver.Thread
	pager := appserver.NewThreadPager[appserver.Thread](client, appserver.ThreadListParams{Limit: 100, UseStateDBOnly: true})
	for !pager.Done() && pager.Pages() < nativeListPages {
		data, err := pager.Next(ctx)
		if err != nil {
			return nil, model.Errorf(model.CodeAppServerUnavailable, "check the App Server log in the home's logs folder", "list native threads: %v", err)
		}
		out = append(out, data...)
	}
	return out, nil
}

func recencyOf(th appserver.Thread) time.Time {
	if th.RecencyAt != nil {
		return time.Unix(*th.RecencyAt, 0).UTC()
	}
	return time.Unix(th.UpdatedAt, 0).UTC()
}

func encodeListCursor(c listCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeListCursor(s string) (listCursor, error) {
	var c listCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.ID == "" {
		return c, model.Errorf(model.CodeInvalidArgument, "pass the nextCursor of the previous page unchanged, with the same --sort", "malformed cursor")
	}
	return c, nil
}
