package io.trailproof.otlp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * OTLP/HTTP trace messages in both encodings (src/site/ingestion.md#otlp): the request decoded, the answers
 * ({@code ExportTraceServiceResponse}, and the {@code google.rpc.Status} of a 400) encoded.
 *
 * <p>Protobuf is the official generated classes' own parser (unknown fields are skipped, nesting
 * is limited to 100 levels). OTLP/JSON is protobuf's JSON mapping with three differences; the
 * official {@link JsonFormat} covers two (lowerCamelCase names, 64-bit integers as strings or
 * numbers, enums as integers or names) but reads ids as base64, where OTLP/JSON sends hex. So the
 * JSON is read as a tree first, every id ({@code traceId}, {@code spanId}, {@code parentSpanId},
 * and those of links) is turned from hex into base64 there, and {@link JsonFormat} reads the
 * result. An id that is not hex makes the body undecodable (a 400); one of the wrong length
 * decodes, and the span mapping refuses that span alone. Unknown fields are ignored, as OTLP asks
 * of receivers.
 */
public final class OtlpCodec {

    /** google.rpc.Code INVALID_ARGUMENT, the code of every 400 answer. */
    public static final int INVALID_ARGUMENT = 3;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final JsonFormat.Parser JSON_PARSER = JsonFormat.parser().ignoringUnknownFields();
    private static final JsonFormat.Printer JSON_PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();

    private OtlpCodec() {
    }

    /** The export request in {@code body}, or why it is not one. */
    public static ExportTraceServiceRequest decode(byte[] body, OtlpEncoding encoding) throws UndecodableBody {
        if (encoding == OtlpEncoding.PROTOBUF) {
            try {
                return ExportTraceServiceRequest.parseFrom(body);
            } catch (InvalidProtocolBufferException e) {
                throw new UndecodableBody("the body is not an OTLP ExportTraceServiceRequest in protobuf: " + e.getMessage());
            }
        }
        if (body.length == 0) {
            throw new UndecodableBody("the body is empty; send an OTLP/JSON ExportTraceServiceRequest object");
        }
        JsonNode tree;
        try {
            tree = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new UndecodableBody("the body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UndecodableBody("the body is not valid JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new UndecodableBody("the body must be an OTLP/JSON ExportTraceServiceRequest object");
        }
        HexIds.toBase64((ObjectNode) tree);
        ExportTraceServiceRequest.Builder b = ExportTraceServiceRequest.newBuilder();
        try {
            JSON_PARSER.merge(tree.toString(), b);
        } catch (InvalidProtocolBufferException | RuntimeException e) {
            // JsonFormat reports some malformed values (a number out of range, a wrong type) as
            // unchecked exceptions: every one of them is still a body that does not decode.
            throw new UndecodableBody("the body is not an OTLP/JSON ExportTraceServiceRequest: " + e.getMessage());
        }
        return b.build();
    }

    /** The 200 answer: full success, or {@code partial_success} with the count and the first reason. */
    public static byte[] response(OtlpEncoding encoding, long rejectedSpans, String errorMessage) {
        ExportTraceServiceResponse.Builder r = ExportTraceServiceResponse.newBuilder();
        if (rejectedSpans > 0) {
            r.setPartialSuccess(ExportTracePartialSuccess.newBuilder()
                    .setRejectedSpans(rejectedSpans)
                    .setErrorMessage(errorMessage == null ? "" : errorMessage));
        }
        ExportTraceServiceResponse message = r.build();
        if (encoding == OtlpEncoding.PROTOBUF) {
            return message.toByteArray();
        }
        try {
            return JSON_PRINTER.print(message).getBytes(StandardCharsets.UTF_8);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a response message always prints", e);
        }
    }

    /**
     * A {@code google.rpc.Status} (code, message; no details). Written by hand: the message has two
     * scalar fields, and its generated class lives in another artifact (proto-google-common-protos)
     * that nothing else here needs.
     */
    public static byte[] status(OtlpEncoding encoding, int code, String message) {
        if (encoding == OtlpEncoding.JSON) {
            ObjectNode o = JSON.createObjectNode().put("code", code).put("message", message);
            return o.toString().getBytes(StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            out.writeInt32(1, code);
            out.writeString(2, message);
            out.flush();
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory does not fail", e);
        }
        return bytes.toByteArray();
    }
}
