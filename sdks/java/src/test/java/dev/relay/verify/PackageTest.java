package dev.relay.verify;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The artifacts build.sh made (the jar the other tests run against, its sources
 * and javadoc jars) and the pom.xml that publishes them: name, version, licence,
 * README, Java 15 class files, no dependency.
 */
class PackageTest {
    private static final Path JAR = Path.of(System.getProperty("relay.jar", "build/relay-verify-" + Verifier.VERSION + ".jar"));

    private static String text(JarFile jar, String name) throws Exception {
        JarEntry entry = jar.getJarEntry(name);
        assertNotNull(entry, name + " is in " + jar.getName());
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String child(Element parent, String name) {
        return parent.getElementsByTagName(name).item(0).getTextContent().trim();
    }

    @Test
    void thePomDescribesTheArtifact() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Fixtures.ROOT.resolve("pom.xml").toFile());
        Element project = pom.getDocumentElement();
        assertEquals("dev.relay", child(project, "groupId"));
        assertEquals("relay-verify", child(project, "artifactId"));
        assertEquals(Verifier.VERSION, child(project, "version"));
        assertEquals("jar", child(project, "packaging"));
        assertEquals("relay-verify", child(project, "name"));
        assertTrue(child(project, "description").contains("Relay webhooks"));
        assertEquals("Apache-2.0", child((Element) project.getElementsByTagName("license").item(0), "name"));
        assertEquals("15", child(project, "maven.compiler.release"));
        assertEquals(0, project.getElementsByTagName("dependencies").getLength(), "no dependency");
    }

    @Test
    void theVersionIsTheOtherSDKs() throws Exception {
        String pkg = Files.readString(Fixtures.ROOT.resolve("../typescript/package.json"));
        Matcher m = Pattern.compile("\"version\":\\s*\"([^\"]+)\"").matcher(pkg);
        assertTrue(m.find());
        assertEquals(m.group(1), Verifier.VERSION);
    }

    @Test
    void theJarHoldsTheLibraryItsLicenceReadmeAndPom() throws Exception {
        assertEquals("relay-verify-" + Verifier.VERSION + ".jar", JAR.getFileName().toString());
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Attributes manifest = jar.getManifest().getMainAttributes();
            assertEquals("relay-verify", manifest.getValue("Implementation-Title"));
            assertEquals(Verifier.VERSION, manifest.getValue("Implementation-Version"));
            assertEquals("dev.relay.verify", manifest.getValue("Automatic-Module-Name"));
            assertTrue(text(jar, "META-INF/LICENSE").contains("Apache License"));
            assertEquals(Files.readString(Fixtures.ROOT.resolve("README.md")), text(jar, "META-INF/README.md"));
            String maven = "META-INF/maven/dev.relay/relay-verify/";
            assertEquals(Files.readString(Fixtures.ROOT.resolve("pom.xml")), text(jar, maven + "pom.xml"));
            assertTrue(text(jar, maven + "pom.properties").contains("version=" + Verifier.VERSION + "\n"));
            List<String> classes = Collections.list(jar.entries()).stream()
                    .map(JarEntry::getName)
                    .filter(n -> n.endsWith(".class"))
                    .collect(Collectors.toList());
            assertTrue(classes.contains("dev/relay/verify/Verifier.class"), classes.toString());
            for (String name : classes) {
                assertTrue(name.startsWith("dev/relay/verify/"), name + ": only the library's classes");
                try (DataInputStream in = new DataInputStream(jar.getInputStream(jar.getJarEntry(name)))) {
                    assertEquals(0xCAFEBABE, in.readInt());
                    in.readUnsignedShort();
                    assertEquals(59, in.readUnsignedShort(), name + " runs on Java 15");
                }
            }
        }
    }

    @Test
    void theSourcesAndJavadocJarsArePublishable() throws Exception {
        Path dir = JAR.toAbsolutePath().getParent();
        try (JarFile sources = new JarFile(dir.resolve("relay-verify-" + Verifier.VERSION + "-sources.jar").toFile())) {
            assertArrayEquals(
                    Files.readAllBytes(Fixtures.ROOT.resolve("src/main/java/dev/relay/verify/Verifier.java")),
                    text(sources, "dev/relay/verify/Verifier.java").getBytes(StandardCharsets.UTF_8));
            assertTrue(text(sources, "META-INF/LICENSE").contains("Apache License"));
        }
        try (JarFile javadoc = new JarFile(dir.resolve("relay-verify-" + Verifier.VERSION + "-javadoc.jar").toFile())) {
            assertTrue(text(javadoc, "dev/relay/verify/Verifier.html").contains("verifyOnce"));
        }
    }
}
