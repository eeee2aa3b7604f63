package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The program answers initialize on stdout, and only protocol goes there;
// it exits 0 when stdin closes.
func TestRunServesStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"--script", writeScript(t, testScript), "--engine", "native"}, inR, outW, &stderr, noEnv, nil)
		outW.Close()
	}()
	_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"elicitation":{"form":{}}}}}`+"\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	require.NoError(t, err)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       struct {
				Name string `json:"name"`
			} `json:"agentInfo"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(line, &resp), "%s", line)
	assert.Equal(t, 1, resp.Result.ProtocolVersion)
	assert.Equal(t, "askcore-acp", resp.Result.AgentInfo.Name)
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-exit:
		assert.Equal(t, 0, code, stderr.String())
	case <-time.After(patience):
		t.Fatal("run did not return after stdin closed")
	}
}

func TestRunBadSettings(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run([]string{"--script", "/nonexistent/script.jsonl"}, bytes.NewReader(nil), &stdout, &stderr, noEnv, nil))
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "askcore-acp")
	assert.Equal(t, 2, run([]string{"--bogus"}, bytes.NewReader(nil), &stdout, &stderr, noEnv, nil))
	assert.Equal(t, 2, run([]string{"extra"}, bytes.NewReader(nil), &stdout, &stderr, noEnv, nil))
	assert.Empty(t, stdout.String())
}
