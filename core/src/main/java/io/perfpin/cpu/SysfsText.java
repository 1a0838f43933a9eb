package io.perfpin.cpu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** Reads the small text files of sysfs and procfs, where an absent file means "not on this kernel". */
final class SysfsText {
    private SysfsText() {}

    /**
     * The file's text without surrounding whitespace and NUL bytes (some kernels print an empty
     * {@code nohz_full} as a NUL and a newline), or empty when the file does not exist.
     */
    static Optional<String> read(Path file) {
        try {
            String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            return Optional.of(text.replace('\0', ' ').strip());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file + ": " + e.getMessage(), e);
        }
    }

    /** A CPU set from a list file ({@code 0-3,8}), else from the mask file beside it, else empty. */
    static Optional<CpuSet> readCpus(Path listFile, Path maskFile) {
        Optional<CpuSet> list = read(listFile).map(text -> parse(listFile, text, false));
        return list.isPresent() ? list : read(maskFile).map(text -> parse(maskFile, text, true));
    }

    /** A CPU set from a list file, empty when absent. */
    static Optional<CpuSet> readList(Path listFile) {
        return read(listFile).map(text -> parse(listFile, text, false));
    }

    /** A decimal number, empty when the file is absent. */
    static Optional<Long> readLong(Path file) {
        return read(file).map(text -> {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(file + ": expected a number, found '" + text + "'");
            }
        });
    }

    private static CpuSet parse(Path file, String text, boolean mask) {
        try {
            return mask ? CpuSet.parseMask(text) : CpuSet.parseList(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }
}
