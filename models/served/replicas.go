package served

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrReplicaModel is what a replica listing other models than the role's
// server_model matches with errors.Is: bad input, since its answers would
// be another reader's mixed into the role's.
var ErrReplicaModel = errors.New("a replica does not serve the role's model")

// CheckReplicas asks each of cfg's replicas (its URLs, when there are
// several) once for the models its /v1/models lists, all at once, and
// returns an error matching ErrReplicaModel naming the first, in the
// manifest's order, that lists models but not cfg.Server.Model, with its
// index in servers. A replica that does not answer is no error here: the
// client takes it out of service and asks the others. ctx bounds the wait.
func CheckReplicas(ctx context.Context, cfg Config) error {
	urls := cfg.Endpoints()
	if len(urls) < 2 {
		return nil
	}
	c, err := newClient(cfg, nil)
	if err != nil {
		return err
	}
	lists := make([][]string, len(urls))
	var wg sync.WaitGroup
	for i := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], _ = c.ModelsAt(ctx, i)
		}()
	}
	wg.Wait()
	for i, l := range lists {
		if l != nil && !slices.Contains(l, cfg.Server.Model) {
			return fmt.Errorf("%w: servers[%d]: %s serves %q, not %q; every replica in servers must serve server_model", ErrReplicaModel, i, urls[i], l, cfg.Server.Model)
		}
	}
	return nil
}
