package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Exit codes, the same for every subcommand.
const (
	exitOK    = 0 // success; for lookup: a value was found (or --default applied)
	exitFail  = 1 // compile errors; lookup: not found or failed
	exitUsage = 2 // bad command line
)

// command is one subcommand.
type command struct {
	name     string
	synopsis string // one line for `hieracc help`
	usage    string // the full help text
	run      func(c *cmdEnv, args []string) int
}

// cmdEnv is what a subcommand reads and writes.
type cmdEnv struct {
	name           string
	stdin          io.Reader
	stdout, stderr io.Writer
	// term is stderr as given, for what draws on a terminal (progress);
	// stderr escapes control characters, so messages cannot.
	term io.Writer
	// flagsOnly, when set, receives the command's flags instead of their
	// parsing, and the command stops there: completions and the manual
	// are made from the flags the commands really define (completion.go).
	flagsOnly func(*flag.FlagSet)
}

// errorf prints "hieracc CMD: message" to stderr.
func (c *cmdEnv) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "hieracc %s: %s\n", c.name, fmt.Sprintf(format, args...))
}

// usageError reports a bad command line: the message, the command's short
// usage and where to read more.
func (c *cmdEnv) usageError(format string, args ...any) int {
	c.errorf(format, args...)
	if cmd := findCommand(c.name); cmd != nil {
		fmt.Fprintf(c.stderr, "\nUsage:\n%s\nRun 'hieracc help %s' for details.\n", synopsisLines(cmd.usage), c.name)
	}
	return exitUsage
}

// commands lists the subcommands, in the order help shows them. It is
// filled in init: the commands' own code refers to it.
var commands []*command

func init() {
	commands = []*command{compileCmd, checkCmd, lookupCmd, diffCmd, verifyCmd, inspectCmd, serveCmd, completionCmd, manCmd, versionCmd, helpCmd}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program; main only calls it, so tests can too.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	// A bug must never lose the user's exit code to a panic trace: report
	// it and fail.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "hieracc: internal error: %v\nPlease report this, with the command line.\n", r)
			code = exitFail
		}
	}()
	term := stderr
	stderr = safeWriter{stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage())
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, mainUsage())
		return exitOK
	case "-version", "--version":
		name = "version"
		args = args[:1]
	}
	cmd := findCommand(name)
	if cmd == nil {
		msg := fmt.Sprintf("hieracc: unknown command %q", name)
		if strings.HasPrefix(name, "-") {
			msg = fmt.Sprintf("hieracc: flag %s given before a command", name)
		}
		fmt.Fprintf(stderr, "%s\n\n%s", msg, mainUsage())
		return exitUsage
	}
	// Output that could not be written (a full disk, a closed file) is a
	// failure, not a success with a file cut short: a script reading
	// `hieracc lookup ... > value` would take it for the value.
	out := &checkedWriter{w: stdout}
	if isTerminal(stdout) {
		stdout = out.w // diff looks for a terminal, for colour
	} else {
		stdout = out
	}
	code = cmd.run(&cmdEnv{name: name, stdin: stdin, stdout: stdout, stderr: stderr, term: term}, args[1:])
	if out.err != nil && code == exitOK {
		fmt.Fprintf(stderr, "hieracc %s: writing the output: %v\n", name, out.err)
		code = exitFail
	}
	return code
}

// checkedWriter keeps the first error of its writes, and fails every
// write after it.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

// parseFlags parses flags wherever they appear among the arguments (as
// `puppet lookup` allows: `lookup KEY --node N`); "--" ends the flags. It
// returns the other arguments, or ok=false with the exit code when parsing
// must stop (help was printed, or the command line is bad).
func parseFlags(c *cmdEnv, fs *flag.FlagSet, args []string) (rest []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if c.flagsOnly != nil {
		c.flagsOnly(fs)
		return nil, exitOK, false
	}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(c.stdout, findCommand(c.name).usage)
			return nil, exitOK, false
		}
		if err != nil {
			return nil, c.usageError("%s", flagError(err)), false
		}
		left := fs.Args()
		if endedByDashDash(fs, args[:len(args)-len(left)]) {
			return append(rest, left...), 0, true
		}
		if len(left) == 0 {
			return rest, 0, true
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// endedByDashDash reports whether the flags fs.Parse consumed ended with the
// "--" terminator, rather than with a flag whose value is "--" (as in
// `--knock-out-prefix --`).
func endedByDashDash(fs *flag.FlagSet, consumed []string) bool {
	for i := 0; i < len(consumed); i++ {
		tok := consumed[i]
		if tok == "--" {
			return true
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(tok, "-"), "=")
		if hasValue {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			i++ // the flag's value
		}
	}
	return false
}

// flagError rewords the flag package's messages for people who type the
// GNU spelling (--flag).
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag --%s", strings.TrimPrefix(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("flag --%s needs a value", strings.TrimPrefix(name, "-"))
	}
	return msg
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// cleanPathErr keeps "stat x: no such file or directory" readable (for
// the files the CLI opens itself; the build has its own).
func cleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// safeWriter writes text with every control character but newline and
// tab, and every byte that is not UTF-8, escaped as Go quotes them (\x1b,
// \u0085, \xe9): a message that quotes hostile input (a key, a file name,
// a fact) never echoes raw bytes to a terminal or a log. Each Write is
// taken as whole characters, as fmt writes a message in one call.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	clean := true
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if unsafeRune(r, n) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s.w.Write(p)
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, p[i])
		case unsafeRune(r, n):
			q := strconv.QuoteRune(r) // '\x1b', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.Write(p[i : i+n])
		}
		i += n
	}
	if _, err := io.WriteString(s.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unsafeRune reports whether the rune r, n bytes long, must be escaped.
func unsafeRune(r rune, n int) bool {
	if r == utf8.RuneError && n == 1 {
		return true
	}
	return r != '\n' && r != '\t' && unicode.IsControl(r)
}
