# bash completion for ubdump, ubgen, ubreplay and ubpeer (installed as
# share/bash-completion/completions/<tool>; or `source scripts/completion/ubscope.bash`).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Everything is read from the tool being completed, so completion follows the tool's version:
#   options            from `TOOL --help`
#   option values      the `a|b|c` lists `TOOL --help` shows after an option (-T, -G, --audit-format,
#                      --fail-on, -z, --raw, ...), every `-z NAME` it mentions
#   -i                 the network interfaces of /sys/class/net
#   -O                 protocols: ub, the headers of `ubdump -G headers`, Wireshark's names outside UB
#   -j / -J            those and the field names, space-separated (the last word inside the quotes)
#   -e / -Y / --fuzz   field names from `ubdump -G fields` (for -Y: the word being typed inside the
#                      filter expression), -o: decoder option names from `ubdump -o help`
#   files              -r/-w/--save/... and positional arguments
# Plain bash: no bash-completion helper functions needed.

# _ubscope_help TOOL: the help text, cached per tool path
_ubscope_help() {
    local var="_UBSCOPE_HELP_${1//[^A-Za-z0-9]/_}"
    if [[ -z ${!var+x} ]]; then
        printf -v "$var" '%s' "$("$1" --help 2>&1)"
    fi
    printf '%s\n' "${!var}"
}

# _ubscope_fields UBDUMP: every field name (first column of `ubdump -G fields`), cached
_ubscope_fields() {
    if [[ -z ${_UBSCOPE_FIELDS+x} ]]; then
        _UBSCOPE_FIELDS=$({ "$1" -G fields 2>/dev/null | cut -f1
            printf '%s\n' frame.number frame.len frame.time_relative ub.error ub; } | sort -u)
    fi
    printf '%s\n' "$_UBSCOPE_FIELDS"
}

# _ubscope_choices TOOL OPTION: the values listed after OPTION in the help ("-T text|fields|json",
# "-z ub,srt"); lower-case words only (upper-case words are placeholders such as FILE or N)
_ubscope_choices() {
    _ubscope_help "$1" | grep -oE -- "(^|[[:space:],(])$2[ =][a-z][a-z0-9,._|-]*" |
        sed -E "s/^[[:space:],(]?$2[ =]//" | tr '|' '\n' | grep -E '^[a-z]' | sort -u
}

# the ubdump next to (or instead of) the tool being completed: field names and -o options
_ubscope_ubdump() {
    local t=$1
    if [[ $t == */* && -x ${t%/*}/ubdump ]]; then echo "${t%/*}/ubdump"
    elif [[ $t == */* && -x ${t%/*}/../tools/ubdump ]]; then echo "${t%/*}/../tools/ubdump"
    else command -v ubdump 2>/dev/null || echo ubdump
    fi
}

_ubscope() {
    local tool=${COMP_WORDS[0]}
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    command -v -- "$tool" >/dev/null 2>&1 || return 0
    local ubdump
    ubdump=$(_ubscope_ubdump "$tool")

    case $prev in
    --log-dir)
        COMPREPLY=($(compgen -d -- "$cur"))
        compopt -o filenames 2>/dev/null
        return 0
        ;;
    -r | -w | --save | --audit-output | --report-output | --ready-file | --map-file | --lua | --scenario | --rx-file)
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return 0
        ;;
    -e | --fuzz)
        COMPREPLY=($(compgen -W "$(_ubscope_fields "$ubdump")" -- "$cur"))
        return 0
        ;;
    -Y | -R | --read-filter | --display-filter)
        # complete the field name being typed at the end of the expression
        local q= head= word=$cur
        [[ $word == [\'\"]* ]] && { q=${word:0:1}; word=${word:1}; }
        head=${word%"${word##*[^A-Za-z0-9._]}"}
        word=${word:${#head}}
        local f
        while IFS= read -r f; do
            [[ -n $f && $f == "$word"* ]] && COMPREPLY+=("$q$head$f")
        done < <(_ubscope_fields "$ubdump")
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    -O)
        # tshark -O: comma-separated protocols; complete the one after the last comma
        local head=${cur%"${cur##*,}"} p
        while IFS= read -r p; do
            [[ -n $p && $p == "${cur##*,}"* ]] && COMPREPLY+=("$head$p")
        done < <({ echo ub; "$ubdump" -G headers 2>/dev/null | cut -f2
            _ubscope_fields "$ubdump" | sed -n 's/\..*//p' | grep -vxE '_ws|frame|ub'; } | sort -u)
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    -j | -J)
        # tshark -j/-J: space-separated protocol and field names (typed inside quotes); complete the last
        local q= head= word=$cur p
        [[ $word == [\'\"]* ]] && { q=${word:0:1}; word=${word:1}; }
        head=${word%"${word##* }"}
        while IFS= read -r p; do
            [[ -n $p && $p == "${word##* }"* ]] && COMPREPLY+=("$q$head$p")
        done < <({ echo ub; "$ubdump" -G headers 2>/dev/null | cut -f2; _ubscope_fields "$ubdump"
            _ubscope_fields "$ubdump" | sed -n 's/\..*//p' | grep -vxE '_ws'; } | sort -u)
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    -i | -I | --intf2 | --rx-iface)
        # network interfaces of this namespace
        COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur"))
        return 0
        ;;
    -o)
        local names
        names=$("$ubdump" -o help 2>/dev/null | sed -E 's/ {2,}.*//' | tr ' ' '\n' | grep -oE '^[a-z][a-z0-9._<>]*=' | sort -u)
        COMPREPLY=($(compgen -W "$names" -- "$cur"))
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    -*)
        local choices keys
        # KEY=VALUE options (-E header=y|n, -E separator=C): the keys, then the listed values
        # (the KEY=VALUE words of the option's own help entry, continuation lines included)
        keys=$(_ubscope_help "$tool" | awk -v o="$prev" '
                $1 == o && /^  -/ { on = 1; print; next }
                on && /^ {6,}[^ -]/ { print; next }
                { on = 0 }' |
            grep -oE -- "(^|[[:space:],(])[a-z][a-z0-9_.]*=[^[:space:],;)]*" | sed -E 's/^[[:space:],(]//' | sort -u)
        if [[ -n $keys ]]; then
            if [[ $cur == *=* ]]; then
                local k=${cur%%=*} line v
                line=$(grep -m1 -E "^$k=" <<<"$keys")
                for v in $(tr '|' ' ' <<<"${line#*=}"); do
                    [[ $v == [a-z0-9]* && $k=$v == "$cur"* ]] && COMPREPLY+=("$k=$v")
                done
            else
                COMPREPLY=($(compgen -W "$(sed 's/=.*/=/' <<<"$keys" | sort -u)" -- "$cur"))
                compopt -o nospace 2>/dev/null
            fi
            return 0
        fi
        choices=$(_ubscope_choices "$tool" "$prev")
        if [[ -n $choices ]]; then
            COMPREPLY=($(compgen -W "$choices" -- "$cur"))
            return 0
        fi
        # an option that takes a placeholder argument (N, T, HOST...): nothing to offer
        # (a here-string, not a pipe: grep -q stops early, which `set -o pipefail` would count as a failure)
        if grep -qE -- "(^|[[:space:],(])$prev [A-Z\[]" <<<"$(_ubscope_help "$tool")"; then
            return 0
        fi
        ;;
    esac

    if [[ $cur == -* ]]; then
        local opts
        opts=$(_ubscope_help "$tool" | grep -oE -- '(^|[[:space:],(\[])--?[A-Za-z][A-Za-z0-9-]*' |
            sed -E 's/^[[:space:],(\[]//' | grep -vE -- '-$' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return 0
    fi
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
    return 0
}

complete -F _ubscope ubdump ubgen ubreplay ubpeer
