package mcpserver

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// wire is a JSON-RPC peer written by hand, over pipes, for the tests that
// must send what go-sdk's client would not.
type wire struct {
	t     *testing.T
	w     *io.PipeWriter
	lines chan []byte
}

// startWire connects a hand-written client to a new server (all protocol
// versions) over newline-delimited JSON pipes.
func startWire(t *testing.T) *wire {
	t.Helper()
	ctx := context.Background()
	srv, err := startServer(ctx, nativeCore, options{})
	require.NoError(t, err)
	toServer, clientW := io.Pipe()
	clientR, fromServer := io.Pipe()
	ss, err := srv.mcp.Connect(ctx, &lineTransport{r: toServer, w: fromServer, closeReader: toServer.Close}, nil)
	require.NoError(t, err)
	w := &wire{t: t, w: clientW, lines: make(chan []byte, 16)}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(w.lines)
		sc := bufio.NewScanner(clientR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			w.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() {
		_ = clientW.Close()
		_ = ss.Wait()
		_ = fromServer.Close()
		_ = clientR.Close()
		for range w.lines {
		}
		<-readerDone
		srv.close()
	})
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	_, err := io.WriteString(w.w, line+"\n")
	require.NoError(w.t, err)
}

func (w *wire) recv() []byte {
	w.t.Helper()
	select {
	case l, ok := <-w.lines:
		require.True(w.t, ok, "the server closed the connection")
		return l
	case <-time.After(waitLong):
		w.t.Fatal("no message from the server")
		return nil
	}
}

// handshake initializes a wire client on protocol 2025-11-25 with the
// given capabilities JSON.
func (w *wire) handshake(capabilities string) {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + capabilities + `,"clientInfo":{"name":"wire","version":"0"}}}`)
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
