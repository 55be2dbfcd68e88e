@server @oai_completions
Feature: OpenAI-compatible text completions, model list and server properties
  /v1/completions completes a prompt for the openai client and plain HTTP: choices[0].text, usage,
  finish_reason, the alias as model; streamed, it ends with data: [DONE]. /v1/models lists the model
  under its alias, and /props reports the configured slots and the context of each.

  Background: Two slots sharing 1024 tokens of context
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   42 as server seed
    And   2 slots
    And   1024 KV cache size
    Then  the server is starting
    Then  the server is healthy
    Given a model davinci-002

  Scenario Outline: A text completion that reaches max_tokens finishes with length (<client>)
    Given a prompt Once upon a time
    And   6 max tokens to predict
    And   the request field ignore_eos is true
    When  a text completion is requested from /v1/completions with <client>
    Then  the finish reason is length
    And   the usage counts 6 completion tokens
    And   the completion names the model smollm2
    And   the response header Content-Type is application/json; charset=utf-8
    And   6 tokens are predicted

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario Outline: A streamed text completion has the same text as the plain one (<client>)
    Given the request field temperature is 0
    And   the request field ignore_eos is true
    And   8 max tokens to predict
    And   a prompt The capital of France is
    And   a prompt The capital of France is
    When  a text completion is requested from /v1/completions with <client>
    Given streaming is enabled
    When  a text completion is requested from /v1/completions with <client>
    Then  the last 2 completions are identical
    And   the response header Content-Type is text/event-stream
    And   every stream chunk has one choice
    And   the last stream chunk carries the usage
    And   the usage counts 8 completion tokens
    And   the completion names the model smollm2
    And   the finish reason is length

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario: A raw text completion stream ends with data: [DONE]
    Given streaming is enabled
    And   3 max tokens to predict
    And   a prompt Once upon a time
    When  a text completion is requested from /v1/completions with raw HTTP
    Then  the stream ended with data: [DONE]

  Scenario: The text completion and the native completion generate the same text
    Given the request field temperature is 0
    And   the request field ignore_eos is true
    And   8 max tokens to predict
    And   a prompt The capital of France is
    And   a prompt The capital of France is
    When  a text completion is requested from /v1/completions with raw HTTP
    And   a completion request with no api error
    Then  the last 2 completions are identical

  Scenario: /v1/models lists the model under its alias
    Then  the openai client lists the model smollm2
    When  a GET request to /v1/models
    Then  the response status is 200
    And   the response field object is list
    And   the response field data.0.id is smollm2
    And   the response field data.0.object is model

  Scenario: /props reports the configured context and slots
    Then  the server properties report the configured context and slots
    When  a GET request to /props
    Then  the response field total_slots is 2
    And   the response field default_generation_settings.n_ctx is 512
    And   the response field model_alias is smollm2
