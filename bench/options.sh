# Sourced by bench scripts: bench_options ARGS… reads --engine E and --format text|json into
# `engine` and `format` (their defaults set by the caller) and the one positional argument into
# `positional`; any other option is refused.
bench_options() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --engine) engine="$2"; shift ;;
      --format) format="$2"; shift ;;
      -*) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
      *) positional="$1" ;;
    esac
    shift
  done
  case "$format" in text|json) ;; *) echo "$(basename "$0"): --format is text or json" >&2; exit 2 ;; esac
}
