package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hcbench/hcbench/experiments/memory"
)

// machine is the computer the documented times and memory were measured on.
type machine struct {
	os, arch  string
	cores     int
	cpu       string // the CPU's model name, "" when unknown
	memory    int64
	goVersion string
	date      string  // the day of the measurement, UTC
	load      float64 // the 1-minute load average when the script started; −1 when unknown
}

// thisMachine describes the machine the script runs on.
func thisMachine(now time.Time) machine {
	m := machine{os: runtime.GOOS, arch: runtime.GOARCH, cores: runtime.NumCPU(), goVersion: strings.TrimPrefix(runtime.Version(), "go"),
		date: now.UTC().Format("2006-01-02"), load: -1}
	m.cpu = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		if v, err := strconv.ParseInt(strings.Fields(kb)[0], 10, 64); err == nil {
			m.memory = v * 1024
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if v, err := strconv.ParseFloat(f[0], 64); err == nil {
				m.load = v
			}
		}
	}
	return m
}

// procField returns the value of the first "key: value" line of a /proc file, "" when absent.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// sentence names the machine and the day, for the line under a generated table of times.
func (m machine) sentence() string {
	s := fmt.Sprintf("Measured by `go run ./internal/docnumbers` on %s: %s/%s, %d cores", m.date, m.os, m.arch, m.cores)
	if m.cpu != "" {
		s += " of an " + m.cpu
	}
	if m.memory > 0 {
		s += ", " + memory.Format(m.memory)
	}
	s += ", Go " + m.goVersion
	if m.load >= 0 {
		s += fmt.Sprintf("; load average %.1f when it started", m.load)
	}
	return s + "."
}

// short names the machine in a phrase: "2 cores of an AMD EPYC 7B13, Go 1.26.8, 2026-11-28".
func (m machine) short() string {
	s := fmt.Sprintf("%d cores", m.cores)
	if m.cpu != "" {
		s += " of an " + m.cpu
	}
	return s + ", Go " + m.goVersion + ", " + m.date
}
