@server @chat
Feature: OpenAI-compatible chat completions
  /v1/chat/completions and /chat/completions answer the official openai client and plain HTTP alike:
  one choice, usage token counts, finish_reason length or stop, the server's alias as model, JSON with
  charset utf-8, or a text/event-stream of one-choice chunks ending with data: [DONE].

  Background: One slot, an alias, a fixed seed
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   42 as server seed
    And   1 slots
    And   512 KV cache size
    Then  the server is starting
    Then  the server is healthy
    Given a system prompt You are a helpful assistant.
    And   a model gpt-4o-mini

  Scenario Outline: A chat completion that reaches max_tokens finishes with length (<client>, <path>)
    Given a user prompt Write a long story about a dragon.
    And   8 max tokens to predict
    And   the request field ignore_eos is true
    When  a chat completion is requested from <path> with <client>
    Then  the finish reason is length
    And   the usage counts 8 completion tokens
    And   the completion names the model smollm2
    And   the response header Content-Type is application/json; charset=utf-8
    And   8 tokens are predicted

    Examples:
      | client            | path                 |
      | the openai client | /v1/chat/completions |
      | the openai client | /chat/completions    |
      | raw HTTP          | /v1/chat/completions |
      | raw HTTP          | /chat/completions    |

  Scenario Outline: A chat completion that ends on its own finishes with stop (<client>)
    Given a user prompt Answer yes.
    And   8 max tokens to predict
    And   the request field grammar is root ::= "yes"
    When  a chat completion is requested from /v1/chat/completions with <client>
    Then  the finish reason is stop
    And   the completion content is yes
    And   the usage counts fewer than 8 completion tokens

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario: usage.prompt_tokens counts the prompt the chat template renders
    Given a user prompt What is the capital of France?
    And   4 max tokens to predict
    When  the chat template is applied to the prompts
    Then  the rendered prompt holds every message in order
    When  a chat completion is requested from /v1/chat/completions with raw HTTP
    Then  the usage counts the rendered prompt's tokens

  Scenario Outline: A streamed chat completion has the same text as the plain one (<client>, <path>)
    Given the request field temperature is 0
    And   the request field ignore_eos is true
    And   10 max tokens to predict
    And   a user prompt Tell me about the moon.
    And   a user prompt Tell me about the moon.
    When  a chat completion is requested from <path> with <client>
    Given streaming is enabled
    When  a chat completion is requested from <path> with <client>
    Then  the last 2 completions are identical
    And   the response header Content-Type is text/event-stream
    And   every stream chunk has one choice
    And   the last stream chunk carries the usage
    And   the usage counts 10 completion tokens
    And   the completion names the model smollm2
    And   the finish reason is length

    Examples:
      | client            | path                 |
      | the openai client | /v1/chat/completions |
      | raw HTTP          | /v1/chat/completions |
      | raw HTTP          | /chat/completions    |

  Scenario: A raw stream ends with data: [DONE]
    Given streaming is enabled
    And   4 max tokens to predict
    And   a user prompt Say hello.
    When  a chat completion is requested from /v1/chat/completions with raw HTTP
    Then  the stream ended with data: [DONE]
    And   every stream chunk has one choice

  Scenario: Without stream_options.include_usage no chunk carries usage
    Given streaming is enabled
    And   4 max tokens to predict
    And   the request field stream_options is {"include_usage": false}
    And   a user prompt Say hello.
    When  a chat completion is requested from /v1/chat/completions with raw HTTP
    Then  no stream chunk carries usage
    And   the stream ended with data: [DONE]
