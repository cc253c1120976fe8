package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

@Name(EventNames.LAYOUT)
@Label("Pool Layout")
@Category(EventNames.CATEGORY)
@Description("The pool layout installed: at start-up and at every install")
@StackTrace(false)
public final class LayoutEvent extends FileEvent {

    @Label("Kind")
    @Description("sliced, direct, host, sub-slices or exclusive-pages")
    public String kind;

    @Label("Layout")
    @Description("The normalised layout file, every default filled in")
    public String layout;

    @Label("Source")
    @Description("Where the layout came from: file, API or JMX")
    public String source;

    @Label("Attached Late")
    @Description("The agent was loaded into a running JVM: what the process held before is not recorded")
    public boolean attachedLate;

    @Override
    void writeFields(Bytes out) {
        out.string(kind);
        out.string(layout);
        out.string(source);
        out.bool(attachedLate);
    }
}
