package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.stats.AgentNotice;
import org.junit.jupiter.api.Test;

class UrlTextTest {
    @Test
    void theUserInfoOfEveryUrlInATextIsMaskedAndTheRestKept() {
        assertEquals(
                "bad option 'otlp=http://***@host:4318/v1/metrics': credentials; also http://***@other",
                UrlText.masked("bad option 'otlp=http://user:secret@host:4318/v1/metrics': credentials; also"
                        + " http://u:p@other"));
        assertEquals(
                "http://127.0.0.1:4318/v1/metrics pin=io@0",
                UrlText.masked("http://127.0.0.1:4318/v1/metrics" + " pin=io@0"),
                "no user-info, and an @ outside a URL: kept");
        assertEquals("http://***@host", UrlText.masked(UrlText.masked("http://user:secret@host")), "masked once");
    }

    /** A password with an unencoded / or @ would end RFC 3986's user-info early: masked up to the last @. */
    @Test
    void aPasswordWithSlashesOrAtSignsIsMaskedWhole() {
        assertEquals("'http://***@host:4318'", UrlText.masked("'http://user:pa/ss@w#rd@host:4318'"));
        // with a ?, it may as well be a query with an @ in a value: what follows the @ is masked too
        assertEquals("'http://***@***'", UrlText.masked("'http://user:pa/ss@w?rd#x@host:4318'"));
        assertEquals("http://***@host", UrlText.maskedUrl("http://user:pa/ss@word@host"));
    }

    /** Receivers take API keys in the query: every value is masked, the names and the rest kept. */
    @Test
    void eachValueOfAQueryIsMasked() {
        assertEquals(
                "cannot export to http://c:4318/v1/metrics?api_key=***&region=***;tag: refused",
                UrlText.masked("cannot export to http://c:4318/v1/metrics?api_key=SECRET&region=eu;tag: refused"));
        assertEquals(
                "http://***@c/v1?token=***&#",
                UrlText.masked(UrlText.masked("http://u:p@c/v1?token=a=b&#")),
                "masked once, an = in a value and an empty pair too");
        assertEquals("http://c/v1?key=***", UrlText.maskedUrl("http://c/v1?key=k3y"));
        assertEquals(
                "otlp=http://***@***&api_key=*** refused",
                UrlText.masked("otlp=http://c:4318/v1/metrics?email=me@x.com&api_key=SECRET: refused"),
                "an @ in a value");
        assertEquals("http://***@***&x=***", UrlText.maskedUrl("http://c/v1?key=part1@part2&x=1"));
        assertEquals("http://c/v1?", UrlText.maskedUrl("http://c/v1?"));
    }

    @Test
    void aUrlWithoutSchemeIsMaskedFromItsStart() {
        assertEquals("***@host:4318", UrlText.maskedUrl("user:secret@host:4318"));
        assertEquals("http://host:4318", UrlText.maskedUrl("http://host:4318"));
    }

    @Test
    void theRefusalOfAUrlWithCredentialsNeverShowsThem() {
        String url = "http://user:s3cret@collector:4318";
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> OtlpEndpoint.parse(url, "bad URL '" + UrlText.maskedUrl(url) + "'"));
        assertTrue(e.getMessage().startsWith("bad URL 'http://***@collector:4318': credentials"), e.getMessage());
        String longUrl = "http://user:s3cret@collector:4318/" + "x".repeat(OptionLimits.MAX_VALUE_CHARS);
        e = assertThrows(IllegalArgumentException.class, () -> OtlpEndpoint.parse(longUrl, "bad URL"));
        assertTrue(e.getMessage().startsWith("bad URL 'http://***@collector:4318/xxx"), e.getMessage());
        assertFalse(OptionLimits.shown("otlp=" + longUrl).contains("s3cret"), "cut after masking");
    }

    @Test
    void aNoticeShowsAUrlMasked() {
        assertEquals(
                "cannot export metrics to the OTLP receiver at http://***@host/v1/metrics: refused",
                AgentNotice.refused("cannot export metrics to the OTLP receiver at http://u:p@host/v1/metrics:"
                                + " refused")
                        .text());
    }
}
