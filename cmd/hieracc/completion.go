package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Shell completions and the manual page are made from the commands
// themselves: each command's flags as it defines them (cmdEnv.flagsOnly),
// described by the first line of their text in the command's help. `go
// generate` writes them to contrib/, and a test checks that the files
// there are current.
//
//go:generate sh -c "go run . completion bash >contrib/completion/hieracc.bash && go run . completion zsh >contrib/completion/_hieracc && go run . completion fish >contrib/completion/hieracc.fish && go run . man >contrib/man/hieracc.1"

var completionCmd = &command{
	name:     "completion",
	synopsis: "print a shell completion script (bash, zsh or fish)",
	usage:    completionUsage,
	run:      runCompletion,
}

var manCmd = &command{
	name:     "man",
	synopsis: "print the manual page (roff), made from the help texts",
	usage:    manUsage,
	run:      runMan,
}

func runCompletion(c *cmdEnv, args []string) int {
	if c.flagsOnly != nil { // no flags; and cliSpec must not call itself
		return exitOK
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(c.stdout, completionUsage)
		return exitOK
	}
	if len(args) != 1 {
		return c.usageError("give one shell: bash, zsh or fish")
	}
	spec := cliSpec()
	switch args[0] {
	case "bash":
		writeBash(c.stdout, spec)
	case "zsh":
		writeZsh(c.stdout, spec)
	case "fish":
		writeFish(c.stdout, spec)
	default:
		return c.usageError("unknown shell %q: give bash, zsh or fish", args[0])
	}
	return exitOK
}

func runMan(c *cmdEnv, args []string) int {
	if c.flagsOnly != nil { // no flags; and cliSpec must not call itself
		return exitOK
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(c.stdout, manUsage)
		return exitOK
	}
	if len(args) != 0 {
		return c.usageError("man takes no arguments")
	}
	writeMan(c.stdout, cliSpec())
	return exitOK
}

// cmdSpec is what completions know of a command.
type cmdSpec struct {
	name, synopsis string
	flags          []flagSpec // sorted by name
}

type flagSpec struct {
	name   string
	valued bool   // takes a value (not a bool flag)
	help   string // the first line of its text in the command's help
}

// cliSpec lists every command with its flags, as the commands define them.
func cliSpec() []cmdSpec {
	var out []cmdSpec
	for _, cmd := range commands {
		s := cmdSpec{name: cmd.name, synopsis: cmd.synopsis}
		env := &cmdEnv{name: cmd.name, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, term: io.Discard,
			flagsOnly: func(fs *flag.FlagSet) {
				fs.VisitAll(func(f *flag.Flag) {
					b, isBool := f.Value.(interface{ IsBoolFlag() bool })
					s.flags = append(s.flags, flagSpec{name: f.Name, valued: !isBool || !b.IsBoolFlag(), help: flagHelp(cmd.usage, f.Name)})
				})
			}}
		cmd.run(env, nil)
		sort.Slice(s.flags, func(i, j int) bool { return s.flags[i].name < s.flags[j].name })
		out = append(out, s)
	}
	return out
}

// flagHelp returns the first line of the text of flag name in a command's
// help. A flag is listed on a line that starts with flags ("--name VALUE",
// several separated by commas, continued on the next lines): its text
// follows the last of them after two spaces, or on the next line.
func flagHelp(usage, name string) string {
	lines := strings.Split(usage, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "--") || !listsFlag(t, name) {
			continue
		}
		for _, l := range lines[i:] {
			t := strings.TrimSpace(l)
			if !strings.HasPrefix(t, "--") {
				return t
			}
			if _, text, ok := strings.Cut(t, "  "); ok {
				return strings.TrimSpace(text)
			}
		}
	}
	return ""
}

// listsFlag reports whether a line of flags lists --name.
func listsFlag(line, name string) bool {
	for rest := line; ; {
		i := strings.Index(rest, "--"+name)
		if i < 0 {
			return false
		}
		rest = rest[i+2+len(name):]
		if rest == "" || rest[0] == ' ' || rest[0] == ',' || rest[0] == '=' {
			return true
		}
	}
}

func commandNames(spec []cmdSpec) string {
	names := make([]string, len(spec))
	for i, s := range spec {
		names[i] = s.name
	}
	return strings.Join(names, " ")
}

func writeBash(w io.Writer, spec []cmdSpec) {
	fmt.Fprintf(w, `# bash completion for hieracc. Made by 'hieracc completion bash'; do not edit.
# Load it with: source <(hieracc completion bash)
_hieracc() {
	local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "%s" -- "$cur"))
		return
	fi
	local flags="" valued=""
	case "${COMP_WORDS[1]}" in
`, commandNames(spec))
	for _, s := range spec {
		switch s.name {
		case "help":
			fmt.Fprintf(w, "\thelp)\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn ;;\n", commandNames(spec))
			continue
		case "completion":
			fmt.Fprintf(w, "\tcompletion)\n\t\tCOMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n\t\treturn ;;\n")
			continue
		}
		var all, valued []string
		for _, f := range s.flags {
			all = append(all, "--"+f.name)
			if f.valued {
				valued = append(valued, "--"+f.name)
			}
		}
		fmt.Fprintf(w, "\t%s)\n\t\tflags=%q\n\t\tvalued=\" %s \" ;;\n", s.name, strings.Join(all, " "), strings.Join(valued, " "))
	}
	fmt.Fprint(w, `	esac
	if [[ "$valued" == *" $prev "* ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	elif [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _hieracc hieracc
`)
}

// zshQuote escapes text for an _arguments or _describe spec in single
// quotes.
func zshQuote(s string) string {
	r := strings.NewReplacer("'", `'\''`, "[", `\[`, "]", `\]`, ":", `\:`)
	return r.Replace(s)
}

func writeZsh(w io.Writer, spec []cmdSpec) {
	fmt.Fprint(w, `#compdef hieracc
# zsh completion for hieracc. Made by 'hieracc completion zsh'; do not edit.
# Put it in a folder of $fpath as _hieracc.
_hieracc() {
	local -a commands
	commands=(
`)
	for _, s := range spec {
		fmt.Fprintf(w, "\t\t'%s:%s'\n", s.name, zshQuote(s.synopsis))
	}
	fmt.Fprint(w, `	)
	if (( CURRENT == 2 )); then
		_describe 'command' commands
		return
	fi
	case $words[2] in
`)
	for _, s := range spec {
		switch s.name {
		case "help":
			fmt.Fprintf(w, "\thelp)\n\t\t_describe 'command' commands ;;\n")
			continue
		case "completion":
			fmt.Fprintf(w, "\tcompletion)\n\t\t_values 'shell' bash zsh fish ;;\n")
			continue
		}
		fmt.Fprintf(w, "\t%s)\n\t\t_arguments \\\n", s.name)
		for _, f := range s.flags {
			value := ""
			if f.valued {
				value = ":value:_files"
			}
			fmt.Fprintf(w, "\t\t\t'*--%s[%s]%s' \\\n", f.name, zshQuote(f.help), value)
		}
		fmt.Fprint(w, "\t\t\t'*:file:_files' ;;\n")
	}
	fmt.Fprint(w, `	esac
}
_hieracc "$@"
`)
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func writeFish(w io.Writer, spec []cmdSpec) {
	fmt.Fprint(w, "# fish completion for hieracc. Made by 'hieracc completion fish'; do not edit.\n")
	fmt.Fprint(w, "# Put it in ~/.config/fish/completions/hieracc.fish.\n")
	names := commandNames(spec)
	for _, s := range spec {
		fmt.Fprintf(w, "complete -c hieracc -f -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", names, s.name, fishQuote(s.synopsis))
	}
	for _, s := range spec {
		cond := fishQuote("__fish_seen_subcommand_from " + s.name)
		switch s.name {
		case "help":
			fmt.Fprintf(w, "complete -c hieracc -f -n %s -a %q\n", cond, names)
			continue
		case "completion":
			fmt.Fprintf(w, "complete -c hieracc -f -n %s -a 'bash zsh fish'\n", cond)
			continue
		}
		for _, f := range s.flags {
			value := ""
			if f.valued {
				value = " -r -F"
			}
			fmt.Fprintf(w, "complete -c hieracc -n %s -l %s%s -d %s\n", cond, f.name, value, fishQuote(f.help))
		}
	}
}

// roffText escapes text for a man page line: backslashes, and a dot or
// quote at the start of a line.
func roffText(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		l = strings.ReplaceAll(l, `\`, `\e`)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func writeMan(w io.Writer, spec []cmdSpec) {
	fmt.Fprint(w, `.\" Made by 'hieracc man' from the help texts; do not edit.
.TH HIERACC 1 "" "hieracc" "User Commands"
.SH NAME
hieracc \- compile Puppet Hiera 5 data ahead of time, and read, compare and check the bundles
.SH SYNOPSIS
.B hieracc
.I command
.RI [ flags ]
.SH DESCRIPTION
.nf
`)
	fmt.Fprint(w, roffText(mainUsage()))
	fmt.Fprint(w, ".fi\n.SH COMMANDS\n")
	for _, s := range spec {
		cmd := findCommand(s.name)
		fmt.Fprintf(w, ".SS hieracc %s\n.nf\n", s.name)
		fmt.Fprint(w, roffText(cmd.usage))
		fmt.Fprint(w, ".fi\n")
	}
	fmt.Fprint(w, `.SH SEE ALSO
.BR puppet-lookup (8)
`)
}

const completionUsage = `Usage:
  hieracc completion bash|zsh|fish

Prints a script that completes hieracc's commands and flags in that shell,
made from the flags the commands define.

Example:
  source <(hieracc completion bash)                      # bash, now
  hieracc completion zsh > "${fpath[1]}/_hieracc"        # zsh
  hieracc completion fish > ~/.config/fish/completions/hieracc.fish

Exit codes:
  0  printed
  2  bad command line
`

const manUsage = `Usage:
  hieracc man

Prints hieracc's manual page (roff), made from the help texts of every
command.

Example:
  hieracc man | man -l -
  hieracc man > /usr/local/share/man/man1/hieracc.1

Exit codes:
  0  printed
  2  bad command line
`
