@server @responses
Feature: OpenAI Responses API
  /v1/responses and /responses answer the official openai client (responses.create) and plain HTTP alike:
  an object response with a status, an output list holding one assistant message of output_text parts
  (the client's output_text), and usage whose input_tokens count the rendered conversation (instructions as
  the system message, input as the turns) as /v1/responses/input_tokens and /responses/input_tokens do, and
  whose output_tokens count the generated text. Streamed, the events go from response.created through
  response.output_text.delta events to response.completed, and the deltas make the completed text.

  Background: One slot, a fixed seed, greedy sampling
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   1 slots
    And   1024 KV cache size
    Then  the server is starting
    Given a model gpt-4.1
    And   the request field temperature is 0

  Scenario Outline: A response cut at max_output_tokens counts its tokens (<client>, <path>)
    Given a user prompt Write a long story about a dragon.
    And   8 max tokens to predict
    When  a response is requested from <path> with <client>
    Then  the Responses output is one assistant message with the output text
    And   the Responses usage counts 8 output tokens
    And   the Responses usage counts the tokens of the generated text
    And   the Responses usage counts the tokens of the rendered conversation
    And   the Responses input tokens agree with <path>/input_tokens

    Examples:
      | client            | path          |
      | the openai client | /v1/responses |
      | the openai client | /responses    |
      | raw HTTP          | /v1/responses |
      | raw HTTP          | /responses    |

  Scenario: instructions become the system message and count in the input tokens
    Given a system prompt You are a helpful assistant. Answer in one short sentence.
    And   a user prompt What is the capital of France?
    And   6 max tokens to predict
    When  a response is requested from /v1/responses with the openai client
    Then  the Responses output is one assistant message with the output text
    And   the Responses usage counts the tokens of the rendered conversation
    And   the Responses input tokens agree with the openai client's count

  Scenario: A multi-turn input of message items is answered
    Given a Responses user input item "Hello"
    And   a Responses assistant input item "Hi there! How can I help?"
    And   a Responses user input item "What is the capital of France?"
    And   6 max tokens to predict
    When  a response is requested from /v1/responses with the openai client
    Then  the Responses output is one assistant message with the output text
    And   the Responses usage counts the tokens of the rendered conversation
    And   the Responses input tokens agree with /v1/responses/input_tokens

  Scenario Outline: A streamed response keeps the event order and has the plain response's text (<client>)
    Given a user prompt Tell me about the moon.
    And   10 max tokens to predict
    When  a response is requested from /v1/responses with raw HTTP
    Given streaming is enabled
    When  a response is requested from /v1/responses with <client>
    Then  the Responses stream goes from response.created through text deltas to response.completed
    And   the Responses stream deltas add up to the output text
    And   the last 2 Responses answers have the same output
    And   the Responses usage counts 10 output tokens
    And   the Responses input tokens agree with /responses/input_tokens

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario: A response that ends on its own is completed
    Given a user prompt Answer yes.
    And   16 max tokens to predict
    And   the request field grammar is root ::= "yes"
    When  a response is requested from /v1/responses with raw HTTP
    Then  the Responses answer has status completed
    And   the Responses output is one assistant message with the output text

  # Known bug, skipped with this reason: b11434 answers status "completed" and no incomplete_details when
  # max_output_tokens cut the response; the Responses API says status "incomplete" with
  # incomplete_details.reason "max_output_tokens".
  @known_bug
  Scenario: A response cut at max_output_tokens is incomplete
    Given a user prompt Write a long story about a dragon.
    And   8 max tokens to predict
    When  a response is requested from /v1/responses with raw HTTP
    Then  the Responses answer is incomplete because of max_output_tokens
