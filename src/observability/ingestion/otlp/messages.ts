// The OTLP trace and log messages as a protobufjs JSON descriptor: field numbers and types from
// opentelemetry-proto (opentelemetry/proto/{common,resource,trace,logs}/v1 and
// collector/{trace,logs}/v1/*_service.proto), plus google.rpc.Status for error bodies. protobufjs
// builds its decoders and encoders from this; no .proto file or code generation at run time.
import protobuf from 'protobufjs';

const descriptor = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: {
                        value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] },
                      },
                      fields: {
                        stringValue: { type: 'string', id: 1 },
                        boolValue: { type: 'bool', id: 2 },
                        intValue: { type: 'int64', id: 3 },
                        doubleValue: { type: 'double', id: 4 },
                        arrayValue: { type: 'ArrayValue', id: 5 },
                        kvlistValue: { type: 'KeyValueList', id: 6 },
                        bytesValue: { type: 'bytes', id: 7 },
                      },
                    },
                    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
                    KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
                    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
                    InstrumentationScope: {
                      fields: {
                        name: { type: 'string', id: 1 },
                        version: { type: 'string', id: 2 },
                        attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
                        droppedAttributesCount: { type: 'uint32', id: 4 },
                      },
                    },
                  },
                },
              },
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: {
                      fields: {
                        attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 1 },
                        droppedAttributesCount: { type: 'uint32', id: 2 },
                      },
                    },
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    TracesData: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
                    ResourceSpans: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                        // Deprecated InstrumentationLibrarySpans of SDKs before OTLP 0.15: the
                        // same wire layout as ScopeSpans (library = scope, spans, schema url).
                        instrumentationLibrarySpans: { rule: 'repeated', type: 'ScopeSpans', id: 1000 },
                      },
                    },
                    ScopeSpans: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        spans: { rule: 'repeated', type: 'Span', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    Span: {
                      fields: {
                        traceId: { type: 'bytes', id: 1 },
                        spanId: { type: 'bytes', id: 2 },
                        traceState: { type: 'string', id: 3 },
                        parentSpanId: { type: 'bytes', id: 4 },
                        flags: { type: 'fixed32', id: 16 },
                        name: { type: 'string', id: 5 },
                        kind: { type: 'SpanKind', id: 6 },
                        startTimeUnixNano: { type: 'fixed64', id: 7 },
                        endTimeUnixNano: { type: 'fixed64', id: 8 },
                        attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 9 },
                        droppedAttributesCount: { type: 'uint32', id: 10 },
                        events: { rule: 'repeated', type: 'Event', id: 11 },
                        droppedEventsCount: { type: 'uint32', id: 12 },
                        links: { rule: 'repeated', type: 'Link', id: 13 },
                        droppedLinksCount: { type: 'uint32', id: 14 },
                        status: { type: 'Status', id: 15 },
                      },
                      nested: {
                        SpanKind: {
                          values: {
                            SPAN_KIND_UNSPECIFIED: 0,
                            SPAN_KIND_INTERNAL: 1,
                            SPAN_KIND_SERVER: 2,
                            SPAN_KIND_CLIENT: 3,
                            SPAN_KIND_PRODUCER: 4,
                            SPAN_KIND_CONSUMER: 5,
                          },
                        },
                        Event: {
                          fields: {
                            timeUnixNano: { type: 'fixed64', id: 1 },
                            name: { type: 'string', id: 2 },
                            attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 3 },
                            droppedAttributesCount: { type: 'uint32', id: 4 },
                          },
                        },
                        Link: {
                          fields: {
                            traceId: { type: 'bytes', id: 1 },
                            spanId: { type: 'bytes', id: 2 },
                            traceState: { type: 'string', id: 3 },
                            attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 4 },
                            droppedAttributesCount: { type: 'uint32', id: 5 },
                            flags: { type: 'fixed32', id: 6 },
                          },
                        },
                      },
                    },
                    Status: {
                      fields: {
                        message: { type: 'string', id: 2 },
                        code: { type: 'StatusCode', id: 3 },
                      },
                      nested: {
                        StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } },
                      },
                    },
                  },
                },
              },
            },
            logs: {
              nested: {
                v1: {
                  nested: {
                    ResourceLogs: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeLogs: { rule: 'repeated', type: 'ScopeLogs', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    ScopeLogs: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        logRecords: { rule: 'repeated', type: 'LogRecord', id: 2 },
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    LogRecord: {
                      fields: {
                        timeUnixNano: { type: 'fixed64', id: 1 },
                        observedTimeUnixNano: { type: 'fixed64', id: 11 },
                        severityNumber: { type: 'int32', id: 2 },
                        severityText: { type: 'string', id: 3 },
                        body: { type: 'opentelemetry.proto.common.v1.AnyValue', id: 5 },
                        attributes: { rule: 'repeated', type: 'opentelemetry.proto.common.v1.KeyValue', id: 6 },
                        droppedAttributesCount: { type: 'uint32', id: 7 },
                        flags: { type: 'fixed32', id: 8 },
                        traceId: { type: 'bytes', id: 9 },
                        spanId: { type: 'bytes', id: 10 },
                        eventName: { type: 'string', id: 12 },
                      },
                    },
                  },
                },
              },
            },
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: { resourceSpans: { rule: 'repeated', type: 'opentelemetry.proto.trace.v1.ResourceSpans', id: 1 } },
                        },
                        ExportTraceServiceResponse: {
                          fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } },
                        },
                        ExportTracePartialSuccess: {
                          fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
                        },
                      },
                    },
                  },
                },
                logs: {
                  nested: {
                    v1: {
                      nested: {
                        ExportLogsServiceRequest: {
                          fields: { resourceLogs: { rule: 'repeated', type: 'opentelemetry.proto.logs.v1.ResourceLogs', id: 1 } },
                        },
                        ExportLogsServiceResponse: {
                          fields: { partialSuccess: { type: 'ExportLogsPartialSuccess', id: 1 } },
                        },
                        ExportLogsPartialSuccess: {
                          fields: { rejectedLogRecords: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    google: {
      nested: {
        protobuf: {
          nested: {
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
            Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
          },
        },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
              },
            },
            // What OTLP/gRPC exporters wait for before retrying RESOURCE_EXHAUSTED (docs/access.md#rate-limits).
            RetryInfo: { fields: { retry_delay: { type: 'google.protobuf.Duration', id: 1 } } },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(descriptor);

export const ExportTraceServiceRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
export const ExportTraceServiceResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
export const ExportLogsServiceRequest = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
export const ExportLogsServiceResponse = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');
export const RpcStatus = root.lookupType('google.rpc.Status');
export const RetryInfo = root.lookupType('google.rpc.RetryInfo');

/** The enum names OTLP/JSON may send instead of numbers, with their numbers. */
export const enumNumbers: Readonly<Record<string, number>> = {
  ...root.lookupEnum('opentelemetry.proto.trace.v1.Span.SpanKind').values,
  ...root.lookupEnum('opentelemetry.proto.trace.v1.Status.StatusCode').values,
};
