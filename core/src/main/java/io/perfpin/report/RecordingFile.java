package io.perfpin.report;

import io.perfpin.files.OutputFile;
import io.perfpin.nativeio.Backends;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an agent records ({@code out=FILE}) when more than one JVM has the same options: a JVM started by one that
 * runs the agent gets its options (JMH copies its own JVM's arguments to every fork, and so may any launcher), and
 * two writers of one file would leave neither's records readable.
 *
 * <p>Each JVM writes a file of its own, whole and valid, so a crash of one cuts no other's: the file named, unless
 * another live process writes it (it holds the file's lock, see {@link OutputFile#createUnlessLocked}), and then
 * the same name with its pid before the extension, {@code run.jsonl} giving {@code run.4321.jsonl}. (One file under a
 * lock, with the pid in each record, would let a JVM killed mid-write, as JMH kills a fork that overruns, cut a line
 * in the middle of everyone's records.) Every such file begins with its {@link JvmRecord}, which names the file
 * asked for: {@link #family} finds them again.
 */
public final class RecordingFile {
    private RecordingFile() {}

    /**
     * Creates the recording of this JVM ({@code pid}) for {@code out=named}, as {@link OutputFile} creates files
     * (O_EXCL, 0600, never through a link), locked while it is open, and writes its {@link JvmRecord}.
     *
     * @throws IOException one line naming the file and why it cannot be written
     */
    public static JsonLinesFile create(Path named, long pid, long epochMillis) throws IOException {
        Path asked = named.toAbsolutePath();
        Path file = asked;
        Optional<FileChannel> channel = OutputFile.createUnlessLocked(asked);
        if (channel.isEmpty()) {
            file = ofChild(asked, pid);
            channel = OutputFile.createUnlessLocked(file);
            if (channel.isEmpty()) {
                throw new IOException("both " + asked + " and " + file + " are being written by other processes");
            }
        }
        return begin(channel.get(), file, asked, pid, epochMillis);
    }

    /**
     * Begins the recording of JVM {@code pid} for {@code out=named} in {@code file}, through {@code channel}, open on
     * it and empty: its {@link JvmRecord} first.
     *
     * @throws IOException when the record cannot be written: the channel is closed
     */
    public static JsonLinesFile begin(FileChannel channel, Path file, Path named, long pid, long epochMillis)
            throws IOException {
        JsonLinesFile recording = JsonLinesFile.over(channel, file);
        try {
            recording.write(new JvmRecord(pid, epochMillis, named.toAbsolutePath(), Backends.simulatedPmu()).toJson());
            recording.flush();
        } catch (IOException e) {
            try {
                recording.close();
            } catch (IOException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw e;
        }
        return recording;
    }

    /** The recording of JVM {@code pid} when another writes {@code named}: its pid before the extension. */
    public static Path ofChild(Path named, long pid) {
        String[] parts = stemAndExtension(named.getFileName().toString());
        return named.resolveSibling(parts[0] + "." + pid + parts[1]);
    }

    /**
     * The recordings made for {@code out=named}: {@code named} itself, then those of the JVMs that wrote beside it
     * ({@link #ofChild}) while or after it was recorded, by the time each began. A file beside it counts when it is
     * a regular file of the same owner whose {@link JvmRecord} names {@code named} and began no earlier than
     * {@code named}'s: one left by an earlier run with the same name began before. A recording without a
     * {@link JvmRecord} (made by an older perfpin, or by {@code stat}) stands alone.
     */
    public static List<Path> family(Path named) throws IOException {
        Path asked = named.toAbsolutePath();
        Optional<JvmRecord> root = jvmRecord(asked);
        List<Path> family = new ArrayList<>(List.of(named));
        if (root.isEmpty() || asked.getParent() == null) {
            return family;
        }
        String[] parts = stemAndExtension(asked.getFileName().toString());
        Pattern child = Pattern.compile(Pattern.quote(parts[0]) + "\\.\\d+" + Pattern.quote(parts[1]));
        Object owner = Files.getOwner(asked);
        record Child(JvmRecord jvm, Path file) {}
        List<Child> children = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(asked.getParent())) {
            for (Path entry : entries) {
                Matcher name = child.matcher(entry.getFileName().toString());
                if (!name.matches() || !isRegularFileOf(entry, owner)) {
                    continue;
                }
                Optional<JvmRecord> jvm = jvmRecord(entry);
                if (jvm.isPresent()
                        // however either was spelt: run.jsonl and ./run.jsonl name one file
                        && jvm.get().named().normalize().equals(asked.normalize())
                        && jvm.get().epochMillis() >= root.get().epochMillis()) {
                    children.add(new Child(jvm.get(), entry));
                }
            }
        }
        children.sort(Comparator.comparingLong((Child c) -> c.jvm().epochMillis())
                .thenComparingLong(c -> c.jvm().pid()));
        // Spelt as the user spelt the named file: a report says where each record was read from in the user's words.
        children.forEach(c -> family.add(named.resolveSibling(c.file().getFileName())));
        return family;
    }

    private static boolean isRegularFileOf(Path file, Object owner) throws IOException {
        PosixFileAttributes attributes =
                Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return attributes.isRegularFile() && attributes.owner().equals(owner);
    }

    /** The file's first line, when it is a {@link JvmRecord}. */
    static Optional<JvmRecord> jvmRecord(Path file) throws IOException {
        try (JsonLinesReader lines = JsonLinesReader.open(file)) {
            if (!lines.hasNext()) {
                return Optional.empty();
            }
            Object json = JsonReader.parse(lines.next());
            if (json instanceof Map && JvmRecord.isJvmType(((Map<?, ?>) json).get("type"))) {
                return Optional.of(JvmRecord.fromJson((Map<?, ?>) json));
            }
            return Optional.empty();
        } catch (IllegalArgumentException notARecord) {
            return Optional.empty();
        }
    }

    /** {@code run.jsonl} as {@code run} and {@code .jsonl}; a name with no extension, or only a leading dot, whole. */
    private static String[] stemAndExtension(String name) {
        int dot = name.lastIndexOf('.');
        return dot > 0 ? new String[] {name.substring(0, dot), name.substring(dot)} : new String[] {name, ""};
    }
}
