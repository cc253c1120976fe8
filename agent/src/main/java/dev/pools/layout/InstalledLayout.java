package dev.pools.layout;

/**
 * The normalised text of an installed layout, and where it came from: what the recording writes
 * at every install.
 */
public record InstalledLayout(String kind, String yaml, Source source) {

    /** Where an installed layout came from. */
    public enum Source {
        /** The layout file the agent was given. */
        FILE,
        /** No layout file was given: the agent's default layout ({@code host}). */
        DEFAULT,
        API,
        JMX
    }

    /** Told about every install, including the first. */
    public interface Listener {
        void installed(InstalledLayout layout);
    }
}
