package io.perfpin.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar's manifest, or "development" when run from classes. */
final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Perfpin.class.getPackage().getImplementationVersion();
        return new String[] {"perfpin " + (version != null ? version : "development")};
    }
}
