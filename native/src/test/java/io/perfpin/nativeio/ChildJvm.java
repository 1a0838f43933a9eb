package io.perfpin.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Runs {@link BackendProbe} in a fresh JVM with a chosen class path and system properties. */
final class ChildJvm {
    private final List<Path> classPath = new ArrayList<>();
    private final Map<String, String> properties = new TreeMap<>();

    ChildJvm classPath(Path... entries) {
        classPath.addAll(List.of(entries));
        return this;
    }

    ChildJvm property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /** The probe's output lines, after checking that it exited cleanly. */
    List<String> run() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(classPath.stream().map(Path::toString).collect(Collectors.joining(":")));
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add(BackendProbe.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish: " + command);
        assertEquals(0, process.exitValue(), () -> "child JVM failed: " + command + "\n" + output);
        return List.of(output.split("\n"));
    }

    /** The jar or directory that a class or resource was loaded from. */
    static Path locationOf(String resource) {
        URL url = ChildJvm.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new IllegalStateException("not on the test class path: " + resource);
        }
        try {
            String location = url.toString();
            if (location.startsWith("jar:")) {
                return Paths.get(new URL(location.substring(4, location.indexOf("!/"))).toURI());
            }
            Path file = Paths.get(url.toURI());
            for (int i = 0; i < resource.split("/").length; i++) {
                file = file.getParent();
            }
            return file;
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException(url.toString(), e);
        }
    }

    static Path locationOf(Class<?> type) {
        return locationOf(type.getName().replace('.', '/') + ".class");
    }
}
