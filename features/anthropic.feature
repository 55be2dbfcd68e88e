@server @anthropic
Feature: Anthropic-compatible Messages API
  /v1/messages answers the official anthropic SDK and plain HTTP alike: a message of type message, role
  assistant, text content blocks, a stop_reason (end_turn, max_tokens) with the stop_sequence that ended it,
  and usage whose input side equals what /v1/messages/count_tokens counts for the same request (the server
  counts the cached part of the prompt in cache_read_input_tokens) and whose output_tokens are the tokens
  generated. Streamed, the events come as message_start, then for each content block content_block_start,
  its deltas and content_block_stop, then message_delta and message_stop, and the deltas make the same text.

  Background: One slot, a fixed seed, greedy sampling
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   1 slots
    And   1024 KV cache size
    Then  the server is starting
    Given a model claude-bdd
    And   the request field temperature is 0

  Scenario Outline: A message cut at max_tokens says so and counts its tokens (<client>)
    Given a user prompt Write a long story about a dragon.
    And   8 max tokens to predict
    When  an Anthropic message is requested with <client>
    Then  the Anthropic answer is a text message
    And   the Anthropic stop reason is max_tokens
    And   the Anthropic stop sequence is null
    And   the Anthropic usage counts 8 output tokens
    And   the Anthropic usage counts the tokens of the generated text
    And   the Anthropic input tokens equal what count_tokens says with <client>

    Examples:
      | client               |
      | the anthropic client |
      | raw HTTP             |

  # Ending on its own needs a model that answers briefly and ends its turn: SmolLM2-135M-Instruct does;
  # Gemma 3 270M (a base model without a chat template of its own) writes on until max_tokens.
  @model.smollm2-135m
  Scenario: A message that ends on its own stops with end_turn
    Given a user prompt Answer yes.
    And   16 max tokens to predict
    And   the request field grammar is root ::= "yes"
    When  an Anthropic message is requested with raw HTTP
    Then  the Anthropic answer is a text message
    And   the Anthropic stop reason is end_turn
    And   the Anthropic stop sequence is null
    And   the Anthropic usage counts fewer than 16 output tokens

  Scenario: A system prompt as a string is counted in the input tokens
    Given a system prompt You are a helpful assistant.
    And   an Anthropic user message "Say hello."
    And   4 max tokens to predict
    When  an Anthropic message is requested with the anthropic client
    Then  the Anthropic answer is a text message
    And   the Anthropic input tokens equal what count_tokens says with raw HTTP

  Scenario: A system prompt in text blocks counts the same tokens as one string of their text
    Given an Anthropic system prompt in text blocks:
      | text                 |
      | You are a helpful    |
      |  assistant.          |
    And   an Anthropic user message "Say hello."
    And   4 max tokens to predict
    When  an Anthropic message is requested with the anthropic client
    Then  the Anthropic answer is a text message
    And   the Anthropic input tokens equal what count_tokens says with the anthropic client

  Scenario: A multi-turn conversation with multipart content is answered
    Given an Anthropic user message "Hello"
    And   an Anthropic assistant message "Hi there! How can I help?"
    And   an Anthropic user message in text blocks:
      | text                      |
      | What is                   |
      | the capital of France?    |
    And   8 max tokens to predict
    When  an Anthropic message is requested with the anthropic client
    Then  the Anthropic answer is a text message
    And   the Anthropic input tokens equal what count_tokens says with raw HTTP

  Scenario: Sampling options and metadata are accepted
    Given a user prompt Tell me a joke.
    And   6 max tokens to predict
    And   the request field top_p is 0.9
    And   the request field top_k is 40
    And   the request field metadata is {"user_id": "llama-bdd-user"}
    When  an Anthropic message is requested with the anthropic client
    Then  the Anthropic answer is a text message
    And   the Anthropic stop reason is max_tokens
    And   the Anthropic usage counts 6 output tokens

  # The stop sequence is echoed and never part of the text. The stop reason is checked in the @known_bug
  # scenario below: b11434 says end_turn where the Messages API says stop_sequence.
  Scenario Outline: A stop sequence ends the message and is echoed (<client>)
    Given a user prompt <prompt>
    And   30 max tokens to predict
    And   the request field stop_sequences is ["<stop>"]
    When  an Anthropic message is requested with <client>
    Then  the Anthropic stop sequence is "<stop>"
    And   the Anthropic text does not contain "<stop>"
    And   the Anthropic usage counts fewer than 30 output tokens

    @model.smollm2-135m
    Examples:
      | client               | prompt                         | stop  |
      | the anthropic client | Count: one two three four five | three |
      | raw HTTP             | Count: one two three four five | three |

  # Known bug, skipped with this reason: b11434 answers stop_reason "end_turn" when a stop sequence ended the
  # message (server-task.cpp maps STOP_TYPE_WORD to end_turn); the Messages API says "stop_sequence".
  @known_bug
  Scenario Outline: A stop sequence gives stop_reason stop_sequence
    Given a user prompt <prompt>
    And   30 max tokens to predict
    And   the request field stop_sequences is ["<stop>"]
    When  an Anthropic message is requested with raw HTTP
    Then  the Anthropic stop reason is stop_sequence
    And   the Anthropic stop sequence is "<stop>"

    @model.smollm2-135m
    Examples:
      | prompt                         | stop  |
      | Count: one two three four five | three |

  Scenario Outline: A streamed message keeps the event order and has the plain message's text (<client>)
    Given a user prompt Tell me about the moon.
    And   10 max tokens to predict
    When  an Anthropic message is requested with raw HTTP
    Given streaming is enabled
    When  an Anthropic message is requested with <client>
    Then  the Anthropic stream events follow the Messages order
    And   the last 2 Anthropic answers are the same
    And   the Anthropic stop reason is max_tokens
    And   the Anthropic usage counts 10 output tokens
    And   the Anthropic input tokens equal what count_tokens says with raw HTTP

    Examples:
      | client                       |
      | raw HTTP                     |
      | the anthropic client         |
      | the anthropic stream helper  |

  @model.smollm2-135m
  Scenario: A streamed message that ends on its own says end_turn in message_delta
    Given a user prompt Answer yes.
    And   16 max tokens to predict
    And   the request field grammar is root ::= "yes"
    And   streaming is enabled
    When  an Anthropic message is requested with raw HTTP
    Then  the Anthropic stream events follow the Messages order
    And   the Anthropic stop reason is end_turn
    And   the Anthropic usage counts fewer than 16 output tokens

  # The server's facts for requests the Messages API refuses: no messages is a 500 server_error (the
  # converter throws a runtime_error), a message without content a 400, both in the OpenAI error shape.
  Scenario Outline: A request without <what> is refused
    When  a POST request to /v1/messages with JSON <body>
    Then  the request is rejected with <status> <error_type> saying "<message>"
    And   the server is healthy

    Examples:
      | what            | body                                                                  | status | error_type            | message                     |
      | messages        | {"model": "m", "max_tokens": 4}                                       | 500    | server_error          | 'messages' is required      |
      | message content | {"model": "m", "max_tokens": 4, "messages": [{"role": "user"}]}       | 400    | invalid_request_error | must contain 'content'      |
      | a role          | {"model": "m", "max_tokens": 4, "messages": [{"content": "hi"}]}      | 500    | server_error          | Missing 'role'              |

  # The server's fact, as its README says: max_tokens is optional on /v1/messages (the converter puts 4096,
  # not tested here: it would generate that much) and count_tokens never needs it.
  Scenario: count_tokens needs no max_tokens
    When  a POST request to /v1/messages/count_tokens with JSON {"model": "m", "messages": [{"role": "user", "content": "Hello"}]}
    Then  the response status is 200
    And   the response header Content-Type is application/json; charset=utf-8

  # Known bug, skipped with this reason: b11434 answers errors on /v1/messages in the OpenAI shape
  # ({"error": {"code", "type", "message"}}), never Anthropic's {"type": "error", "error": {...}}; it accepts
  # an empty messages list and unknown roles (they reach the chat template); a missing messages list is a 500.
  @known_bug
  Scenario Outline: A request the Messages API refuses gets an Anthropic error (<case>)
    When  a POST request to /v1/messages with JSON <body>
    Then  the request is refused in Anthropic's shape with 400 invalid_request_error

    Examples:
      | case           | body                                                                      |
      | no messages    | {"model": "m", "max_tokens": 4}                                           |
      | empty messages | {"model": "m", "max_tokens": 4, "messages": []}                           |
      | bad role       | {"model": "m", "max_tokens": 4, "messages": [{"role": "robot", "content": "hi"}]} |
