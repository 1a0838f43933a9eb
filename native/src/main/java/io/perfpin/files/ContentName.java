package io.perfpin.files;

import java.util.zip.CRC32;

/**
 * A name for a file's content, its length and CRC-32: perfpin's extracted library and agent jar carry it, so
 * that two versions never share a name. It tells versions apart and does not stand for the content: a copy
 * found under it is loaded only after {@link OwnedDirectory#install} compared it byte for byte. No cryptographic
 * hash, which would load the JDK's security providers into every application the agent starts in; and CRC-32 (zlib's,
 * in the JDK's native library) rather than CRC-32C, whose tables the interpreter builds as the class loads: a
 * millisecond of the agent's start.
 */
public final class ContentName {
    private ContentName() {}

    public static String of(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return Long.toHexString(bytes.length) + "-"
                + Long.toHexString(crc.getValue() | 0x1_0000_0000L).substring(1);
    }
}
