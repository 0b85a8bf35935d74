# Sourced by ./build, ./sgm and .ci/run: points JAVA_HOME at a JDK of version 21 or later.
# Looks at $JAVA_HOME, then `java` on the PATH, then the usual JDK folders; says so when there is none.

sgm_java_version() {
  # Prints the feature version of the java binary $1 (17, 21, 25, ...), or nothing. The JDK's release
  # file says it without starting a JVM; the JVM is asked only when that file is missing.
  local home_dir; home_dir=$(dirname "$(dirname "$1")")
  if [ -f "$home_dir/release" ]; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home_dir/release"
  else
    "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}'
  fi
}

sgm_find_java() {
  local candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  local dir
  for dir in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*; do
    [ -d "$dir" ] && candidates+=("$dir")
  done
  for dir in "${candidates[@]}"; do
    if [ -x "$dir/bin/java" ] && [ -x "$dir/bin/javac" ]; then
      local version
      version=$(sgm_java_version "$dir/bin/java")
      if [ -n "$version" ] && [ "${version%%.*}" -ge 21 ] 2>/dev/null; then
        export JAVA_HOME="$dir"
        return 0
      fi
    fi
  done
  echo "sgm: no JDK 21 or later found (looked at JAVA_HOME, java on the PATH and /usr/lib/jvm)." >&2
  echo "sgm: install one (e.g. Temurin 21 or 25) and set JAVA_HOME to it." >&2
  return 1
}
