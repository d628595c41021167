#!/usr/bin/env bash
# Builds the Java verifier and runs its tests with the JDK (15 or later) and
# Debian's JUnit 5 (`apt-get install default-jdk junit5`) only: no Maven, no
# download. Makes, in build/:
#   relay-verify-VERSION.jar          the library (classes, LICENSE, README,
#                                     its pom.xml under META-INF/maven)
#   relay-verify-VERSION-sources.jar  its sources
#   relay-verify-VERSION-javadoc.jar  its API documentation
# then runs src/test/java (vectors, unit tests, the example, the artifacts)
# against the jar. The last lines are JUnit's summary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

JUNIT="${JUNIT_CONSOLE_JAR:-/usr/share/java/junit-platform-console-standalone.jar}"
for tool in javac jar javadoc java; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing (apt-get install default-jdk)" >&2; exit 1; }
done
[ -f "$JUNIT" ] || { echo "build.sh: $JUNIT is missing (apt-get install junit5)" >&2; exit 1; }

# The project's own <version>, the first in pom.xml.
VERSION="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -n1)"
NAME="relay-verify-$VERSION"
GROUP=dev.relay
ARTIFACT=relay-verify

rm -rf build
mkdir -p build/classes build/test-classes build/meta/META-INF/maven/$GROUP/$ARTIFACT build/javadoc

javac --release 15 -Xlint:all -Werror -encoding UTF-8 -d build/classes $(find src/main/java -name '*.java')

cp LICENSE README.md build/meta/META-INF/
cp pom.xml build/meta/META-INF/maven/$GROUP/$ARTIFACT/
printf 'groupId=%s\nartifactId=%s\nversion=%s\n' $GROUP $ARTIFACT "$VERSION" \
    >build/meta/META-INF/maven/$GROUP/$ARTIFACT/pom.properties
printf 'Automatic-Module-Name: dev.relay.verify\nImplementation-Title: %s\nImplementation-Version: %s\n' \
    $ARTIFACT "$VERSION" >build/MANIFEST.MF
jar --create --file "build/$NAME.jar" --manifest build/MANIFEST.MF -C build/classes . -C build/meta .
jar --create --file "build/$NAME-sources.jar" -C src/main/java . -C build/meta .
javadoc -quiet -Xdoclint:all -Werror --release 15 -encoding UTF-8 -d build/javadoc \
    -sourcepath src/main/java dev.relay.verify
jar --create --file "build/$NAME-javadoc.jar" -C build/javadoc .

javac --release 15 -Xlint:all,-processing -Werror -encoding UTF-8 -cp "build/$NAME.jar:$JUNIT" -d build/test-classes \
    $(find src/test/java examples -name '*.java')
java -Drelay.sdk.root=. -Drelay.jar="build/$NAME.jar" -jar "$JUNIT" \
    --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
    --class-path "build/$NAME.jar:build/test-classes" --scan-class-path build/test-classes
