//go:build linux

package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// release measures the lazy engine of the front doors (frontdoor's
// lazyEngine): the RSS idle after initialize, after the questions (the
// engine held), and once the idle period after the last one is over (the
// engine released), with the wasm engine and with --engine native; and the
// time of the first question (the engine opened for it, from a warm cache)
// against the second (the engine open) and the one after the release. One
// process per door and engine; the questions are asked one process at a
// time, the idle period is waited out by all at once.
func release() {
	type run struct {
		d      door
		engine string
		ps     []*proc
		err    error
		// RSS idle, after the questions, after the release.
		idle, held, released float64
		// The questions' round trips: first, second, after the release.
		first, second, again time.Duration
		againCPU             time.Duration // the CPU time of the one after the release
		lastReply            time.Time
		warm                 string // its cache
	}
	var runs []*run
	for _, d := range []door{mcpDoor, acpDoor} {
		if *d.bin == "" {
			continue
		}
		warm := freshDir("warm-release-")
		if err := fillCache(d, warm); err != nil {
			row(d.name+": filling the cache with a question", "n/a ("+cell(err)+")", "", "", "n/a")
			continue
		}
		for _, engine := range []string{"wasm", "native"} {
			r := &run{d: d, engine: engine, warm: warm}
			runs = append(runs, r)
			progress("%s --engine %s: idle, two questions", d.name, engine)
			r.ps, r.idle, r.err = idleOne(d, warm, append(d.questionArgs(), "--engine", engine))
			if r.err != nil {
				continue
			}
			if r.first, r.err = timedQuestion(r.ps[0], d, 1); r.err != nil {
				continue
			}
			if r.second, r.err = timedQuestion(r.ps[0], d, 2); r.err != nil {
				continue
			}
			r.lastReply = time.Now()
			r.held, r.err = settledOne(r.ps)
		}
	}
	defer func() {
		for _, r := range runs {
			stopAll(r.ps)
		}
	}()
	progress("waiting out the idle period (%s) after the last question", *idleRelease)
	var wg sync.WaitGroup
	for _, r := range runs {
		if r.err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(r.lastReply.Add(*idleRelease)))
			r.released, r.err = settledOne(r.ps)
		}()
	}
	wg.Wait()
	for _, r := range runs {
		if r.err == nil {
			r.again, r.againCPU, r.err = timedCPUQuestion(r.ps[0], r.d, 3)
		}
	}

	const target = 25e6
	for _, r := range runs {
		what := fmt.Sprintf("%s --engine %s", r.d.name, r.engine)
		if r.err != nil {
			row(what+": questions and release", "n/a ("+cell(r.err)+")", "", "", "n/a")
			continue
		}
		row(what+": idle after initialize", mb(r.idle), "", "≤ 25 MB", passMiss(r.idle <= target))
		row(what+": after two questions (engine held)", mb(r.held), ratio(r.held/r.idle), "", "")
		row(fmt.Sprintf("%s: %s after the last question (engine released)", what, *idleRelease), mb(r.released),
			ratio(r.released/r.idle), "≤ 25 MB", passMiss(r.released <= target))
		row(what+": question round trip: first / second / after the release (its CPU time)", fmt.Sprintf("%s / %s / %s (CPU %s)",
			ms(r.first), ms(r.second), ms(r.again), ms(r.againCPU)), "", "", "")
		q, err := questionTimes(r.d, r.warm, r.engine)
		if err != nil {
			row(what+": question round trips, fresh processes", "n/a ("+cell(err)+")", "", "", "n/a")
			continue
		}
		row(fmt.Sprintf("%s: question round trip, first / second, median of %d fresh processes (CPU time of the process during it)", what, *questionRuns),
			fmt.Sprintf("%s / %s (CPU %s / %s)", ms(q.first), ms(q.second), ms(q.firstCPU), ms(q.secondCPU)), "", "", "")
	}
}

type questionFigures struct{ first, second, firstCPU, secondCPU time.Duration }

// questionTimes is the median round trip of the first and of the second
// question of *questionRuns processes started one after the other on the
// warm cacheHome (not waiting for them to settle: a front door is asked
// when its client is ready), and the median CPU time the process spent
// during each: on a loaded machine the round trip is mostly waiting for a
// core, the CPU time is the cost.
func questionTimes(d door, cacheHome, engine string) (questionFigures, error) {
	var all [4][]time.Duration
	for range *questionRuns {
		ps, err := startAll(d, cacheHome, 1, append(d.questionArgs(), "--engine", engine))
		for n := 1; err == nil && n <= 2; n++ {
			var took, cpu time.Duration
			took, cpu, err = timedCPUQuestion(ps[0], d, n)
			all[n-1], all[n+1] = append(all[n-1], took), append(all[n+1], cpu)
		}
		stopAll(ps)
		if err != nil {
			return questionFigures{}, err
		}
	}
	return questionFigures{median(all[0]), median(all[1]), median(all[2]), median(all[3])}, nil
}

// timedCPUQuestion is timedQuestion with the CPU time (user + system) the
// process spent meanwhile.
func timedCPUQuestion(p *proc, d door, n int) (took, cpu time.Duration, err error) {
	before, err := cpuTime(p.cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	if took, err = timedQuestion(p, d, n); err != nil {
		return 0, 0, err
	}
	after, err := cpuTime(p.cmd.Process.Pid)
	return took, after - before, err
}

// cpuTime is utime + stime of pid (/proc/PID/stat, in clock ticks of
// 10 ms: USER_HZ is 100 on Linux).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which ends at the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// fillCache makes cacheHome warm: one process asks a question (the
// engine opens, compiles into the cache in the background) and settles.
func fillCache(d door, cacheHome string) error {
	ps, _, err := idleOne(d, cacheHome, d.questionArgs())
	defer stopAll(ps)
	if err != nil {
		return err
	}
	if _, err := d.question(ps[0], 1); err != nil {
		return ended(ps[0], err)
	}
	_, err = settledOne(ps)
	return err
}

func timedQuestion(p *proc, d door, n int) (time.Duration, error) {
	start := time.Now()
	reply, err := d.question(p, n)
	took := time.Since(start)
	if err != nil {
		return 0, ended(p, err)
	}
	progress("%s: question %d: %s: %.200s", d.name, n, took, reply)
	return took, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
