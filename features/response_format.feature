@server @response_format
Feature: response_format on the chat routes
  response_format json_object constrains the answer to a JSON object, json_schema to JSON that validates
  against the schema (checked with jsonschema); a response_format type the server does not know is refused.

  Background: One slot, greedy sampling
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    Then  the server is starting
    Given the request field temperature is 0
    And   a user prompt Give me a number and a colour as JSON.

  # Needs a model that closes its JSON object within max_tokens when asked to repeat {"ok": true}: SmolLM2
  # does; Gemma 3 270M (a base model) writes a longer object and is cut at max_tokens.
  @model.smollm2-135m
  Scenario Outline: json_object gives a JSON object (<client>)
    Given the answer format is a JSON object
    And   a user prompt Repeat this JSON object exactly: {"ok": true}
    And   24 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with <client>
    Then  the finish reason is stop
    And   the answer is JSON in the requested format

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario Outline: json_schema gives JSON that validates against the schema (<client>)
    Given the answer format is JSON with the schema {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}, "colour": {"type": "string", "enum": ["red", "green", "blue"]}}, "required": ["n", "colour"], "additionalProperties": false}
    And   32 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with <client>
    Then  the finish reason is stop
    And   the answer is JSON in the requested format

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario: An unknown response_format type is refused
    When  a POST request to /v1/chat/completions with JSON {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1, "response_format": {"type": "yaml"}}
    Then  the request is rejected with 400 invalid_request_error saying "response_format type must be one of"
