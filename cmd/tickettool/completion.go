package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

const completionUsage = `
usage: tickettool completion bash|zsh|fish

Prints a script that completes tickettool's commands, subcommands and
flags (and file names for a flag's value or a command's arguments) in the
given shell. It is made from the commands' own flag definitions, so it
always matches this tickettool. Load it from the shell's start-up file:

  bash: source <(tickettool completion bash)       (~/.bashrc)
  zsh:  source <(tickettool completion zsh)        (~/.zshrc, after compinit)
  fish: tickettool completion fish | source        (~/.config/fish/config.fish)

Example:
  tickettool completion bash > ~/.local/share/bash-completion/completions/tickettool
`

func runCompletion(e *env, args []string) error {
	fs := newFlags(e, "completion", completionUsage)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	shell, err := oneArg("completion", pos, "SHELL (bash, zsh or fish)")
	if err != nil {
		return err
	}
	m := completionModel()
	switch shell {
	case "bash":
		writeBash(e.stdout, m)
	case "zsh":
		writeZsh(e.stdout, m)
	case "fish":
		writeFish(e.stdout, m)
	default:
		return fail(exitUsage, fmt.Errorf("completion: unknown shell %q", shell), "pass bash, zsh or fish")
	}
	return nil
}

// compEntry is what completes after one command path: "" (the top
// level), "keygen", "proof make".
type compEntry struct {
	path   string
	words  []string // subcommands or fixed arguments
	flags  []compFlag
	noFile bool // arguments are never file names
	parent bool // words are subcommands: the next word extends the path
}

type compFlag struct {
	name  string
	value bool // takes a value (complete file names for it)
}

// completionModel collects every command's flags from its own flag set,
// through env.flagSink, so that nothing runs and nothing is listed twice.
func completionModel() []compEntry {
	cmds := commands()
	top := compEntry{path: "", noFile: true, flags: []compFlag{{name: "help"}, {name: "version"}}}
	names := []string{"help"}
	for _, c := range cmds {
		names = append(names, c.name)
	}
	top.words = names
	out := []compEntry{top, {path: "help", words: names[1:], noFile: true}}
	for _, c := range cmds {
		if len(c.subs) > 0 {
			out = append(out, compEntry{path: c.name, words: c.subs, noFile: true, parent: true, flags: flagsOf(c, nil)})
			for _, s := range c.subs {
				out = append(out, compEntry{path: c.name + " " + s, flags: flagsOf(c, []string{s})})
			}
			continue
		}
		ent := compEntry{path: c.name, flags: flagsOf(c, nil)}
		switch c.name {
		case "completion":
			ent.words, ent.noFile = []string{"bash", "zsh", "fish"}, true
		case "keygen", "holder", "demo", "version":
			ent.noFile = true
		}
		out = append(out, ent)
	}
	return out
}

// flagsOf returns the flags of command c (run with args to reach a
// subcommand), sorted by name, with -h.
func flagsOf(c command, args []string) []compFlag {
	var got *cmdFlags
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		flagSink: func(fs *cmdFlags) { got = fs }}
	c.run(e, args)
	out := []compFlag{{name: "help"}}
	if got == nil {
		return out
	}
	got.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		out = append(out, compFlag{name: f.Name, value: !ok || !b.IsBoolFlag()})
	})
	slices.SortFunc(out, func(a, b compFlag) int { return strings.Compare(a.name, b.name) })
	return out
}

func (c compEntry) flagWords(value bool) string {
	var w []string
	for _, f := range c.flags {
		if !value || f.value {
			w = append(w, "--"+f.name)
		}
	}
	return strings.Join(w, " ")
}

// parents lists the commands whose next word is a subcommand.
func parents(m []compEntry) string {
	var p []string
	for _, c := range m {
		if c.parent {
			p = append(p, c.path)
		}
	}
	return strings.Join(p, "|")
}

const bashHead = `# bash completion for tickettool (tickettool completion bash)

# _tickettool_value_flags PATH: the flags of PATH that take a value.
_tickettool_value_flags() {
	case "$1" in
%s	esac
}

# _tickettool_path: the command path before the word being completed,
# e.g. "proof make"; flag values are skipped.
_tickettool_path() {
	local p="" skip=0 i w f
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((skip)); then skip=0; continue; fi
		case $w in
		--) break ;;
		-*=*) continue ;;
		-*)
			f=${w#-}; f=--${f#-}
			case " $(_tickettool_value_flags "$p") " in *" $f "*) skip=1 ;; esac
			continue ;;
		esac
		case $p in
		"") p=$w ;;
		%s) p="$p $w" ;;
		*) break ;;
		esac
	done
	printf '%%s' "$p"
}

_tickettool() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" p words files=1 f i
	# After "--" come another program's words (mcp -- SERVER ARGS...):
	# file names only, never tickettool's flags.
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			return
		fi
	done
	((COMP_CWORD > 1)) && prev=${COMP_WORDS[COMP_CWORD-1]}
	p=$(_tickettool_path)
	if [[ $prev == -* && $prev != *=* ]]; then
		f=${prev#-}; f=--${f#-}
		case " $(_tickettool_value_flags "$p") " in
		*" $f "*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		esac
	fi
	case "$p" in
%s	*) words=""; files=0 ;;
	esac
	local m=$cur
	[[ $m == -[!-]* ]] && m=-$m # -key completes as --key
	COMPREPLY=($(compgen -W "$words" -- "$m"))
	if ((files)) && [[ $cur != -* ]]; then
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _tickettool tickettool
`

func writeBash(w io.Writer, m []compEntry) {
	vf, cases := shellCases(m, func(words string) string { return fmt.Sprintf("words=%q", words) })
	fmt.Fprintf(w, bashHead, vf, parents(m), cases)
}

// shellCases returns the case arms bash and zsh share: each command path's
// flags that take a value, and its candidates (set as set renders them)
// with whether file names complete too.
func shellCases(m []compEntry, set func(words string) string) (vf, cases string) {
	var v, c strings.Builder
	for _, e := range m {
		fmt.Fprintf(&v, "\t%q) printf '%%s' %q ;;\n", e.path, e.flagWords(true))
		files := 1
		if e.noFile {
			files = 0
		}
		words := strings.TrimSpace(strings.Join(e.words, " ") + " " + e.flagWords(false))
		fmt.Fprintf(&c, "\t%q) %s; files=%d ;;\n", e.path, set(words), files)
	}
	return v.String(), c.String()
}

const zshHead = `#compdef tickettool
# zsh completion for tickettool (tickettool completion zsh)

_tickettool_value_flags() {
	case "$1" in
%s	esac
}

_tickettool() {
	local p="" skip=0 i w f vf files=1
	local -a cands
	# After "--" come another program's words: file names only.
	if ((${words[(I)--]} > 1 && ${words[(I)--]} < CURRENT)); then
		_files
		return
	fi
	for ((i = 2; i < CURRENT; i++)); do
		w=${words[i]}
		if ((skip)); then skip=0; continue; fi
		case $w in
		--) break ;;
		-*=*) continue ;;
		-*)
			f=-${${w#-}#-}; f=-$f
			vf=" $(_tickettool_value_flags "$p") "
			[[ $vf == *" $f "* ]] && skip=1
			continue ;;
		esac
		case $p in
		"") p=$w ;;
		%s) p="$p $w" ;;
		*) break ;;
		esac
	done
	if ((skip)); then _files; return; fi
	case "$p" in
%s	*) cands=(); files=0 ;;
	esac
	compadd -a cands
	((files)) && [[ ${words[CURRENT]} != -* ]] && _files
	return 0
}

if [[ $funcstack[1] == _tickettool ]]; then
	_tickettool "$@"
else
	compdef _tickettool tickettool
fi
`

func writeZsh(w io.Writer, m []compEntry) {
	vf, cases := shellCases(m, func(words string) string { return "cands=(" + words + ")" })
	fmt.Fprintf(w, zshHead, vf, parents(m), cases)
}

const fishHead = `# fish completion for tickettool (tickettool completion fish)

function __tickettool_value_flags
	switch "$argv[1]"
%s	end
end

function __tickettool_path
	set -l p ""
	set -l skip 0
	for w in (commandline -opc)[2..-1]
		if test $skip = 1
			set skip 0
			continue
		end
		switch $w
			case --
				# another program's words follow: no path of ours
				printf '%%s\n' --
				return
			case '-*=*'
				continue
			case '-*'
				set -l f --(string replace -r '^-+' '' -- $w)
				if contains -- $f (__tickettool_value_flags "$p")
					set skip 1
				end
				continue
		end
		switch "$p"
			case ''
				set p $w
			case %s
				set p "$p $w"
			case '*'
				break
		end
	end
	echo $p
end

complete -c tickettool -f
complete -c tickettool -n 'test (__tickettool_path) = --' -F
`

func writeFish(w io.Writer, m []compEntry) {
	var vf, body strings.Builder
	for _, c := range m {
		fmt.Fprintf(&vf, "\t\tcase %s\n\t\t\tprintf '%%s\\n' %s\n", fishQuote(c.path), c.flagWords(true))
		cond := "test (__tickettool_path) = " + fishQuote(c.path)
		if len(c.words) > 0 {
			fmt.Fprintf(&body, "complete -c tickettool -n %s -a %s\n", fishQuote(cond), fishQuote(strings.Join(c.words, " ")))
		}
		if !c.noFile {
			fmt.Fprintf(&body, "complete -c tickettool -n %s -F\n", fishQuote(cond))
		}
		for _, f := range c.flags {
			opt := ""
			if f.value {
				opt = " -r -F"
			}
			fmt.Fprintf(&body, "complete -c tickettool -n %s -l %s%s\n", fishQuote(cond), f.name, opt)
		}
	}
	p := strings.ReplaceAll(parents(m), "|", " ")
	fmt.Fprintf(w, fishHead, vf.String(), p)
	io.WriteString(w, body.String())
}

// fishQuote quotes s for fish in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
