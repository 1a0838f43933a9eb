package io.perfpin.files;

import java.util.zip.CRC32C;

/**
 * A name for a file's content, its length and CRC-32C: perfpin's extracted library and agent jar carry it, so
 * that two versions never share a name. It tells versions apart and does not stand for the content: a copy
 * found under it is loaded only after {@link OwnedDirectory#install} compared it byte for byte. No cryptographic
 * hash, which would load the JDK's security providers into every application the agent starts in.
 */
public final class ContentName {
    private ContentName() {}

    public static String of(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return Long.toHexString(bytes.length) + "-"
                + Long.toHexString(crc.getValue() | 0x1_0000_0000L).substring(1);
    }
}
