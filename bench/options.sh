# Sourced by bench scripts: bench_options ARGS… reads --engine E and --format text|json into
# `engine` and `format` (their defaults set by the caller) and the positional arguments, joined by
# spaces, into `positional` (replacing the caller's default); any other option is refused.
bench_options() {
  local given=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --engine) engine="$2"; shift ;;
      --format) format="$2"; shift ;;
      -*) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
      *) if [ "$given" = 0 ]; then positional="$1" given=1; else positional="$positional $1"; fi ;;
    esac
    shift
  done
  case "$format" in text|json) ;; *) echo "$(basename "$0"): --format is text or json" >&2; exit 2 ;; esac
}
