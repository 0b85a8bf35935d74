# Sourced by the run-* scripts: builds the benchmarks' modules and runs one harness on the module path.
#   sgm_bench_java HEAP MAIN_CLASS [args...]
# SGM_BENCH_PLUGINS names extra plugin jars or folders (':'-separated) to put on the module path,
# e.g. an embedder plugin that is not a dependency of this module. SGM_BENCH_JAVA_OPTS adds JVM options,
# e.g. SGM_BENCH_JAVA_OPTS=-Dsgm.bench.ops=200.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/scripts/find-java.sh"

sgm_bench_java() {
  local heap="$1" main="$2"
  shift 2
  sgm_find_java
  (cd "$root" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true package -pl sgm-benchmarks -am)
  local version
  version=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1)
  local path="$root/sgm-benchmarks/target/sgm-benchmarks-$version.jar:$root/sgm-benchmarks/target/lib"
  # Native access and the vector module as the launcher gives them to servers: Lucene computes vector
  # similarity with the vector module; ONNX Runtime, the tokenizer and gRPC load native libraries.
  # shellcheck disable=SC2086 # options are words
  exec "$JAVA_HOME/bin/java" "-Xmx$heap" --enable-native-access=org.apache.lucene.core,io.grpc.netty.shaded,com.microsoft.onnxruntime,ai.djl.tokenizers \
    --add-modules jdk.incubator.vector ${SGM_BENCH_JAVA_OPTS:-} \
    --module-path "$path${SGM_BENCH_PLUGINS:+:$SGM_BENCH_PLUGINS}" \
    --module "dev.sgm.bench/dev.sgm.bench.$main" "$@"
}
