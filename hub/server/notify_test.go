package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/askcore/askcore/hub/notify"
	"github.com/askcore/askcore/hub/server"
	"github.com/askcore/askcore/hub/store"
)

// A receiver that hangs holds the notifier, never an agent: asks are
// created, and answered, while it holds the first delivery.
func TestHangingReceiverDoesNotSlowAsking(t *testing.T) {
	eachDB(t, func(t *testing.T, d db) {
		// The hub's own notifier, patient with the receiver.
		r := newReplicaConfig(t, d, server.Config{Notify: notify.Options{Timeout: 2 * waitLong, Poll: 10 * time.Millisecond}})
		arrived, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			once.Do(func() { close(arrived) })
			select {
			case <-release:
			case <-req.Context().Done():
			}
		}))
		defer hook.Close()
		a := addAgent(t, r.store, "ada", "ci", 0)
		_, err := r.store.AddNotifyTarget(context.Background(), store.NotifyTarget{PersonID: a.person, Kind: store.NotifyWebhook, URL: hook.URL, Secret: notify.NewSecret()})
		require.NoError(t, err)
		defer close(release)

		first := r.create(a, "c0")
		select {
		case <-arrived:
		case <-time.After(waitLong):
			t.Fatal("the receiver got no delivery")
		}
		var slowest time.Duration
		for i := range 10 {
			start := time.Now()
			r.create(a, "c"+string(rune('1'+i)))
			slowest = max(slowest, time.Since(start))
		}
		resp := r.do("DELETE", "/v1/asks/"+first, a.token, "")
		require.Equal(t, http.StatusOK, resp.status, "%s", resp.body)
		select {
		case <-release:
			t.Fatal("released early")
		default:
		}
		t.Logf("slowest POST /v1/asks while the receiver hung: %v", slowest)
	})
}
