package rubybackend

// The helper process: started once per compile, one request at a time.

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hieracc/hieracc/format"
)

//go:embed helper.rb
var helperSource string

// Timeouts of the helper: starting Puppet, and answering one request.
const (
	StartTimeout   = 2 * time.Minute
	DefaultTimeout = 2 * time.Minute
)

// maxLine bounds a line the helper writes (an answer).
const maxLine = 256 << 20

// Config says how to start the helper.
type Config struct {
	Environment string   // the environment's name, "production" when empty
	EnvDir      string   // the environment's folder on disk
	ModulePath  []string // the module folders on disk, in Puppet's order
	// Roots map the compiler's FS folders to the disk: a request's paths
	// are mapped to the disk through them, and the disk paths in Puppet's
	// messages back.
	Roots []Root
	// Ruby is the interpreter; "" finds the one of `puppet` on PATH
	// (FindRuby).
	Ruby    string
	Timeout time.Duration // per request; 0 = DefaultTimeout
}

// A Root is a folder of the compiler's input FS and where it is on disk.
type Root struct{ FS, Disk string }

// A Process is the running helper.
type Process struct {
	cfg     Config
	mu      sync.Mutex
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte
	readErr error // set before lines is closed
	dead    error // once set, every call fails with it
	Version string
}

// FindRuby returns the Ruby that runs the `puppet` on PATH: the
// interpreter its #! line names, or a Puppet agent package's own.
func FindRuby() (string, error) {
	p, err := exec.LookPath("puppet")
	if err != nil {
		return "", errors.New("--ruby-backends=puppet runs Puppet's Ruby, but `puppet` is not on PATH")
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	aio := filepath.Join(filepath.Dir(p), "..", "puppet", "bin", "ruby") // /opt/puppetlabs/bin/puppet
	if st, err := os.Stat(aio); err == nil && !st.IsDir() {
		return filepath.Clean(aio), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("--ruby-backends=puppet: %v", err)
	}
	defer f.Close()
	first, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if interp, ok := strings.CutPrefix(strings.TrimSpace(first), "#!"); ok {
		fields := strings.Fields(interp)
		if len(fields) > 0 && filepath.Base(fields[0]) == "env" && len(fields) > 1 {
			fields = fields[1:]
		}
		if len(fields) > 0 && strings.HasPrefix(filepath.Base(fields[0]), "ruby") {
			return exec.LookPath(fields[0])
		}
	}
	if r, err := exec.LookPath("ruby"); err == nil {
		return r, nil
	}
	return "", fmt.Errorf("--ruby-backends=puppet: cannot tell which Ruby runs %s", p)
}

// Start starts the helper and waits until Puppet is loaded.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	if cfg.Ruby == "" {
		r, err := FindRuby()
		if err != nil {
			return nil, err
		}
		cfg.Ruby = r
	}
	if cfg.Environment == "" {
		cfg.Environment = "production"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cmd := exec.Command(cfg.Ruby, "-e", helperSource)
	cmd.Stderr = nil // discarded: functions' output never reaches hieracc's logs
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("--ruby-backends=puppet: cannot start %s: %v", cfg.Ruby, err)
	}
	p := &Process{cfg: cfg, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1)}
	go p.read(stdout)
	init := map[string]any{"init": map[string]any{"environment": cfg.Environment, "env_dir": cfg.EnvDir, "modulepath": cfg.ModulePath}}
	line, err := p.roundTrip(ctx, init, StartTimeout)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("--ruby-backends=puppet: starting Puppet's Ruby (%s): %v", cfg.Ruby, err)
	}
	var ready struct {
		Ready string `json:"ready"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &ready); err != nil || ready.Ready == "" {
		p.Close()
		if ready.Error != "" {
			return nil, fmt.Errorf("--ruby-backends=puppet: %s", ready.Error)
		}
		return nil, fmt.Errorf("--ruby-backends=puppet: the Ruby helper answered %.100q", line)
	}
	p.Version = ready.Ready
	return p, nil
}

func (p *Process) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if err != nil {
			p.readErr = err
			close(p.lines)
			return
		}
		p.lines <- line
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("an answer longer than %d bytes", maxLine)
		}
		if err == nil {
			return buf, nil
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				return nil, errors.New("the Ruby helper exited")
			}
			return nil, err
		}
	}
}

// roundTrip sends msg and waits for the answer; a helper that does not
// answer in time is stopped, and so is every later call.
func (p *Process) roundTrip(ctx context.Context, msg any, timeout time.Duration) ([]byte, error) {
	if p.dead != nil {
		return nil, p.dead
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.fail(fmt.Errorf("the Ruby helper exited (%s)", p.exitText()))
		return nil, p.dead
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.fail(fmt.Errorf("%v (%s)", p.readErr, p.exitText()))
			return nil, p.dead
		}
		return line, nil
	case <-t.C:
		p.fail(fmt.Errorf("the Ruby helper did not answer within %v, and was stopped", timeout))
		return nil, p.dead
	case <-ctx.Done():
		p.fail(ctx.Err())
		return nil, p.dead
	}
}

// exitText waits a moment for the process to end and says how it did.
func (p *Process) exitText() string {
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return "exit status 0"
		}
		return err.Error()
	case <-time.After(2 * time.Second):
		return "still running"
	}
}

func (p *Process) fail(err error) {
	if p.dead == nil {
		p.dead = err
		if p.cmd.Process != nil {
			killGroup(p.cmd.Process)
		}
	}
}

// Close stops the helper.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead == nil {
		p.dead = errors.New("the Ruby helper was closed")
		p.stdin.Close()
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		killGroup(p.cmd.Process) // and what its functions left running
		<-done
	}
	return nil
}

// Call asks the helper; an error means the helper failed (crashed, hung,
// spoke nonsense), not the function: a function's failure is the
// Answer's.
func (p *Process) Call(ctx context.Context, req Request) (Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line, err := p.roundTrip(ctx, wireRequest(req, p.toDisk), p.cfg.Timeout)
	if err != nil {
		return Answer{}, err
	}
	a, err := parseAnswer(line, req.Kind)
	if err != nil {
		p.fail(fmt.Errorf("the Ruby helper answered nonsense: %v", err))
		return Answer{}, p.dead
	}
	a.Err = p.fromDisk(a.Err)
	for k, m := range a.Invalid {
		a.Invalid[k] = p.fromDisk(m)
	}
	return a, nil
}

// toDisk maps a compiler path to the disk.
func (p *Process) toDisk(fsPath string) string {
	for _, r := range p.cfg.Roots {
		if fsPath == r.FS {
			return r.Disk
		}
		if rest, ok := strings.CutPrefix(fsPath, r.FS+"/"); ok {
			return filepath.Join(r.Disk, filepath.FromSlash(rest))
		}
	}
	return fsPath
}

// fromDisk names the disk folders of a message as the compiler does.
func (p *Process) fromDisk(msg string) string {
	for _, r := range p.cfg.Roots {
		if r.Disk != "" {
			msg = strings.ReplaceAll(msg, r.Disk+string(filepath.Separator), r.FS+"/")
		}
	}
	return msg
}

// wireRequest is req as the helper reads it, its paths mapped by path.
func wireRequest(req Request, path func(string) string) map[string]any {
	m := map[string]any{
		"kind": req.Kind, "function": req.Function, "level": req.Level, "module": req.Module,
		"node": req.Node, "facts": encodeHash(req.Facts), "trusted": encodeHash(req.Trusted),
		"server_facts": encodeHash(req.ServerFacts), "options": encodeHash(req.Options),
		"keys": req.Keys, "original": req.Original,
	}
	switch {
	case req.Path != "":
		m["location"] = map[string]string{"path": path(req.Path)}
	case req.URI != "":
		m["location"] = map[string]string{"uri": req.URI}
	default:
		m["location"] = nil
	}
	return m
}

func encodeHash(h *format.Hash) any {
	if h == nil {
		return nil
	}
	return encodeValue(h)
}

// parseAnswer reads the helper's answer to a request of the kind.
func parseAnswer(line []byte, kind string) (Answer, error) {
	var w struct {
		Hash    json.RawMessage   `json:"hash"`
		Values  []json.RawMessage `json:"values"`
		Invalid map[string]string `json:"invalid"`
		Error   *string           `json:"error"`
	}
	d := json.NewDecoder(bytes.NewReader(line))
	if err := d.Decode(&w); err != nil {
		return Answer{}, err
	}
	if w.Error != nil {
		if *w.Error == "" {
			return Answer{Err: "the function failed, with no message"}, nil
		}
		return Answer{Err: *w.Error}, nil
	}
	a := Answer{Invalid: w.Invalid, Secret: map[string]bool{}}
	if a.Invalid == nil {
		a.Invalid = map[string]string{}
	}
	if kind == DataHash {
		if w.Hash == nil {
			return Answer{}, errors.New("no hash")
		}
		var top struct {
			H [][2]json.RawMessage `json:"h"`
		}
		if err := json.Unmarshal(w.Hash, &top); err != nil {
			return Answer{}, errors.New("no hash")
		}
		a.Data = format.NewHash(len(top.H))
		for _, kv := range top.H {
			k, _, err := decodeValue(kv[0])
			if err != nil {
				return Answer{}, err
			}
			switch k.(type) {
			case []any, *format.Hash:
				return Answer{}, errors.New("a hash key that is not a scalar")
			}
			v, sens, err := decodeValue(kv[1])
			if err != nil {
				return Answer{}, err
			}
			a.Data.Set(k, v)
			if ks, ok := k.(string); ok && sens {
				a.Secret[ks] = true // a Sensitive anywhere in the entry marks it
			}
		}
		return a, nil
	}
	a.Data = format.NewHash(len(w.Values))
	for _, raw := range w.Values {
		var kv []json.RawMessage
		if err := json.Unmarshal(raw, &kv); err != nil || len(kv) != 2 {
			return Answer{}, errBadValue
		}
		var key string
		if err := json.Unmarshal(kv[0], &key); err != nil {
			return Answer{}, errBadValue
		}
		v, sens, err := decodeValue(kv[1])
		if err != nil {
			return Answer{}, err
		}
		a.Data.Set(key, v)
		if sens {
			a.Secret[key] = true
		}
	}
	return a, nil
}
