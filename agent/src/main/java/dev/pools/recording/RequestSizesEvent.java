package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

@Name(EventNames.REQUEST_SIZES)
@Label("Request Sizes")
@Category(EventNames.CATEGORY)
@Description("One bucket of one pool's histogram of served request sizes (powers of two), since install;"
        + " written at the end of every chunk")
@StackTrace(false)
public final class RequestSizesEvent extends FileEvent {

    @Label("Index")
    @Description("The pool's position in the layout")
    public int index;

    @Label("Bucket Max")
    @Description("Requests in this bucket are larger than half this and at most this")
    @DataAmount
    public long bucketMax;

    @Label("Count")
    @Description("Requests served in this bucket")
    public long count;

    @Override
    void writeFields(Bytes out) {
        out.varint(index);
        out.varint(bucketMax);
        out.varint(count);
    }
}
