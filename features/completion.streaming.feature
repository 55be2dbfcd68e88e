@server @completion @streaming
Feature: Streamed native completion
  With "stream": true, /completion sends the generated text as server-sent events: a piece of content and
  its tokens per event with stop false, then a last event with stop true, the stop type and the timings.
  Joined, the pieces are the text the same request generates without streaming.

  Background: One slot, a fixed seed
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   1 slots
    And   512 KV cache size
    Then  the server is starting

  Scenario Outline: The stream joins into the non-streamed text (<n_predict> tokens, temperature <temperature>)
    Given a prompt <prompt>
    And   <n_predict> max tokens to predict
    And   the request field temperature is <temperature>
    And   the request field ignore_eos is true
    And   the request field cache_prompt is false
    And   a completion request with no api error
    When  the completion request is sent again streamed
    Then  the last 2 completions are identical
    And   the response header Content-Type is text/event-stream
    And   the stream ended with its stop event
    And   the finish reason is limit
    And   <n_predict> tokens are predicted

    Examples:
      | prompt                           | n_predict | temperature |
      | I believe the meaning of life is | 8         | 0           |
      | Once upon a time                 | 24        | 0           |
      | Write a joke about AI            | 12        | 0.8         |

  Scenario: A stream stopped by a stop string ends with stop type word
    Given a prompt Once upon a time
    And   16 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    And   a completion request with no api error
    And   the completion request is sent again stopping at word 3 of its text
    When  the completion request is sent again streamed
    Then  the last 2 completions are identical
    And   the stream ended with its stop event
    And   the finish reason is word

  Scenario: A streamed completion through /completions is the same
    Given streaming is enabled
    And   6 max tokens to predict
    And   the request field ignore_eos is true
    And   a prompt Write a joke about AI
    When  the queued prompt is completed through /completions
    Then  the stream ended with its stop event
    And   6 tokens are predicted
