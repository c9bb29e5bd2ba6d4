# Sourced by the scripts: puts the Swift toolchain on PATH when it is installed but not on PATH
# (Swift's Linux tarballs are commonly unpacked to /opt/swift or /usr/share/swift).
if ! command -v swift >/dev/null 2>&1; then
  for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    if [ -x "$dir/swift" ]; then export PATH="$dir:$PATH"; break; fi
  done
fi
