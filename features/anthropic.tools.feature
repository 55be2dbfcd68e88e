@server @anthropic @tools
Feature: Anthropic-compatible tool use
  With tools and tool_choice any (or a named tool), /v1/messages answers tool_use blocks: an id, the name of
  an offered tool and an input object that validates against that tool's input_schema, with stop_reason
  tool_use. Streamed, a tool_use block's input_json_delta fragments reassemble to the same input. A turn of
  tool_result blocks (text or error) is taken and answered.

  SmolLM2's own template declares no tools, so the server here uses features/data/chatml-tools.jinja:
  SmolLM2's ChatML markers with tool calls in <tool_call> JSON, which the server's template analysis parses.
  SmolLM2 is too small to open a call on its own: the assistant turn is prefilled with the opening marker
  (an Anthropic prefill) and the stop sequence </tool_call> ends the call; what the server makes of the
  generated call (blocks, names, input, stop reason, stream events) is what these scenarios check.

  Background: One slot with a template that can call tools
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   1 slots
    And   1024 KV cache size
    And   the server option --chat-template-file set to features/data/chatml-tools.jinja
    Then  the server is starting
    Given a model claude-bdd
    And   the request field temperature is 0
    And   the request field stop_sequences is ["</tool_call>"]
    And   48 max tokens to predict
    And   an Anthropic tool get_weather described as "Get the current weather in a city" with input schema {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city", "unit"]}
    And   an Anthropic tool get_time described as "Get the local time in a time zone" with input schema {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}

  # These scenarios need a model that writes one call and stops at </tool_call>: SmolLM2 does. Gemma 3 270M
  # writes a second call (get_time) after the first; then b11434's stream opens block 1 before it closes
  # block 0, a server bug documented below ("Two streamed tool uses keep the Messages event order").
  @model.smollm2-135m
  Scenario Outline: tool_choice <choice> gives a tool_use block that fits its tool (<client>)
    Given the Anthropic tool choice is <choice>
    And   an Anthropic user message "<question>"
    And   an Anthropic assistant message "<tool_call>\n"
    When  an Anthropic message is requested with <client>
    Then  every Anthropic tool use validates against its tool's input schema
    And   the Anthropic answer calls only the tool <tool>
    And   the Anthropic stop reason is tool_use
    And   the Anthropic input tokens equal what count_tokens says with raw HTTP

    Examples:
      | choice                                  | question                      | tool        | client               |
      | {"type": "any"}                         | What is the weather in Paris? | get_weather | the anthropic client |
      | {"type": "any"}                         | What is the weather in Paris? | get_weather | raw HTTP             |
      | {"type": "tool", "name": "get_time"}    | What time is it in Tokyo?     | get_time    | the anthropic client |

  # Known bug, skipped with this reason: b11434 turns tool_choice {"type": "tool", "name": ...} into a plain
  # "required" (server-chat.cpp), so the named tool is not enforced: asked about the weather, the answer
  # calls get_weather although get_time was named.
  @known_bug
  Scenario: A named tool_choice forces that tool
    Given the Anthropic tool choice is {"type": "tool", "name": "get_time"}
    And   an Anthropic user message "What is the weather in Paris?"
    And   an Anthropic assistant message "<tool_call>\n"
    When  an Anthropic message is requested with raw HTTP
    Then  the Anthropic answer calls only the tool get_time

  @model.smollm2-135m
  Scenario Outline: A streamed tool use reassembles to the plain tool use (<client>)
    Given the Anthropic tool choice is {"type": "any"}
    And   an Anthropic user message "What is the weather in Paris?"
    And   an Anthropic assistant message "<tool_call>\n"
    When  an Anthropic message is requested with raw HTTP
    Given streaming is enabled
    When  an Anthropic message is requested with <client>
    Then  the Anthropic stream events follow the Messages order
    And   every Anthropic tool use validates against its tool's input schema
    And   the last 2 Anthropic answers are the same
    And   the Anthropic stop reason is tool_use

    Examples:
      | client                      |
      | raw HTTP                    |
      | the anthropic stream helper |

  # Server bug (b11434), reproduced with Gemma 3 270M, which writes a second tool call after the first: the
  # stream opens block 1 (content_block_start) before it closes block 0 (content_block_stop), against the
  # Messages event order. Run it: bin/bdd --model gemma3-270m -D known_bugs=run features/anthropic.tools.feature
  @known_bug @model.gemma3-270m
  Scenario: Two streamed tool uses keep the Messages event order
    Given the Anthropic tool choice is {"type": "any"}
    And   an Anthropic user message "What is the weather in Paris?"
    And   an Anthropic assistant message "<tool_call>\n"
    And   streaming is enabled
    When  an Anthropic message is requested with raw HTTP
    Then  the Anthropic stream events follow the Messages order

  Scenario Outline: A tool_result turn (<kind>) is taken and answered
    Given the Anthropic tool choice is {"type": "any"}
    And   an Anthropic user message "What is the weather in Paris?"
    And   an Anthropic assistant message "<tool_call>\n"
    When  an Anthropic message is requested with raw HTTP
    Then  every Anthropic tool use validates against its tool's input schema
    Given the Anthropic tool choice is {"type": "auto"}
    And   <result>
    And   8 max tokens to predict
    When  an Anthropic message is requested with the anthropic client
    Then  the Anthropic answer is a text message
    And   the Anthropic input tokens equal what count_tokens says with raw HTTP

    Examples:
      | kind  | result                                                                    |
      | text  | the Anthropic answer's tool use is answered with "Sunny, 25 C"            |
      | error | the Anthropic answer's tool use is answered with the error "service down" |
