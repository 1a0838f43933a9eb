package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsStringsTest {
    /** Names a JVM may give its threads, each of which a name field must carry as it is. */
    static List<String> hostileNames() {
        List<String> names = new ArrayList<>(List.of(
                "",
                "nul\0byte",
                "\0",
                "lone\ud800surrogate",
                "low\udc00first",
                "pair backwards \udc00\ud800",
                "new\nline",
                "new\\nline",
                "tab\there",
                "cr\rret",
                "esc\u001b[31mred\u001b[0m",
                "rtl\u202eoverride",
                "ls\u2028ps\u2029",
                "del\u007fc1\u0085",
                "emoji\ud83d\ude00",
                "漢字 é ´",
                "\uffff\ufffe"));
        names.add("x".repeat(StatsLayout.NAME_SIZE - 2)); // the longest kept whole
        names.add("\0".repeat((StatsLayout.NAME_SIZE - 2) / 2));
        names.add("\ud800".repeat((StatsLayout.NAME_SIZE - 2) / 3));
        return names;
    }

    @Test
    void everyNameThatFitsReadsBackAsItWas() throws IOException {
        for (String name : hostileNames()) {
            assertEquals(name.length(), StatsStrings.nameKept(name, StatsLayout.NAME_SIZE), name);
            assertEquals(name, roundTrip(name), () -> "read back otherwise: " + TerminalText.escape(name));
        }
    }

    /** Written over a longer name, a short one is all that is read back. */
    @Test
    void aShorterNameReplacesALongerOne() throws IOException {
        byte[] field = new byte[StatsLayout.NAME_SIZE];
        ByteBuffer buffer = ByteBuffer.wrap(field);
        StatsStrings.putName(buffer, 0, field.length, "a-long-name-of-a-thread");
        StatsStrings.putName(buffer, 0, field.length, "nul\0");
        assertEquals("nul\0", StatsStrings.readName(field, 0, field.length));
    }

    @Test
    void aLongerNameIsCutToTheStartThatFits() throws IOException {
        String huge = "huge-" + "x".repeat(65_536 - 5);
        assertEquals(StatsLayout.NAME_SIZE - 2, StatsStrings.nameKept(huge, StatsLayout.NAME_SIZE));
        assertEquals(huge.substring(0, StatsLayout.NAME_SIZE - 2), roundTrip(huge));

        String nuls = "\0".repeat(StatsLayout.NAME_SIZE);
        assertEquals((StatsLayout.NAME_SIZE - 2) / 2, StatsStrings.nameKept(nuls, StatsLayout.NAME_SIZE));
        assertEquals(nuls.substring(0, (StatsLayout.NAME_SIZE - 2) / 2), roundTrip(nuls));
    }

    /** A surrogate pair whose second half would not fit is left out whole; a lone one is cut as any character. */
    @Test
    void aCutNeverSplitsASurrogatePair() throws IOException {
        // 1,019 bytes of ASCII, then a pair: its first half fits the field's last 3 bytes, its second does not
        String ascii = "a".repeat(StatsLayout.NAME_SIZE - 2 - 3);
        String pair = ascii + "\ud83d\ude00";
        assertEquals(ascii.length(), StatsStrings.nameKept(pair, StatsLayout.NAME_SIZE));
        assertEquals(ascii, roundTrip(pair));
        String lone = ascii + "\ud800\ud800";
        assertEquals(ascii.length() + 1, StatsStrings.nameKept(lone, StatsLayout.NAME_SIZE));
        assertEquals(ascii + "\ud800", roundTrip(lone));
    }

    /** The stats file is anyone's to scribble on: a field that holds no name is refused, not read as one. */
    @Test
    void aFieldThatHoldsNoNameIsRefused() {
        byte[] field = new byte[StatsLayout.NAME_SIZE];
        field[0] = (byte) 0x04; // 1,024 bytes: past the field
        assertThrows(IOException.class, () -> StatsStrings.readName(field, 0, field.length));
        field[0] = 0;
        field[1] = 2;
        field[2] = (byte) 0xc3; // a lead byte and no continuation
        field[3] = 'x';
        assertThrows(IOException.class, () -> StatsStrings.readName(field, 0, field.length));
    }

    private static String roundTrip(String name) throws IOException {
        byte[] file = new byte[StatsLayout.NAME_SIZE + 16];
        ByteBuffer buffer = ByteBuffer.wrap(file);
        StatsStrings.putName(buffer, 8, StatsLayout.NAME_SIZE, name);
        assertEquals(0, file[7], "before the field");
        assertEquals(0, file[8 + StatsLayout.NAME_SIZE], "after the field");
        return StatsStrings.readName(file, 8, StatsLayout.NAME_SIZE);
    }
}
