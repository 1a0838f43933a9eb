package io.perfpin.testkit;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Class paths for child JVMs, made of the jars and directories that this JVM loaded classes from. */
public final class ClassPath {
    private ClassPath() {}

    /** The jar or directory that a class or resource was loaded from. */
    public static Path locationOf(String resource) {
        URL url = ClassPath.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new IllegalStateException("not on the test class path: " + resource);
        }
        try {
            String location = url.toString();
            if (location.startsWith("jar:")) {
                return Path.of(new URL(location.substring(4, location.indexOf("!/"))).toURI());
            }
            Path file = Path.of(url.toURI());
            for (int i = 0; i < resource.split("/").length; i++) {
                file = file.getParent();
            }
            return file;
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException(url.toString(), e);
        }
    }

    public static Path locationOf(Class<?> type) {
        return locationOf(type.getName().replace('.', '/') + ".class");
    }

    /** A class path of the places that these classes were loaded from, in this order. */
    public static String of(Class<?>... types) {
        return Arrays.stream(types)
                .map(ClassPath::locationOf)
                .map(Path::toString)
                .distinct()
                .collect(Collectors.joining(File.pathSeparator));
    }
}
