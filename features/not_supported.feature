@server @not_supported
Feature: Routes the model cannot serve are refused with 501
  Some routes need a kind of model: /v1/audio/transcriptions and /audio/transcriptions a model with audio
  input (and its --mmproj), /v1/systemone a decision model (its GGUF carries a "systemone" chat template).
  With any other model they answer 501 not_supported_error, the message naming what is missing, and the
  server stays healthy. The upload is a real WAV file and the System One request a valid one, so the
  refusal is about the model. Transcribing and answering System One questions need such models, which the
  suite does not provision: those scenarios are not written yet.

  Background: One slot of the default (text-only) model
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    Then  the server is starting

  Scenario Outline: A text model refuses a transcription on <path>
    When  one second of silence is sent for transcription to <path> with raw HTTP
    Then  the request is rejected with 501 not_supported_error saying "does not support audio input"
    And   the server is healthy

    Examples:
      | path                     |
      | /v1/audio/transcriptions |
      | /audio/transcriptions    |

  Scenario: The openai client's transcription raises InternalServerError for a text model
    When  one second of silence is sent for transcription with the openai client
    Then  the openai client raised InternalServerError
    And   the request is rejected with 501 not_supported_error saying "does not support audio input"

  Scenario: A model that is not a decision model refuses System One questions
    When  a POST request to /v1/systemone with JSON {"state": "The sky is blue.", "questions": {"sky": {"type": "noul", "instructions": "Is the sky blue?"}}}
    Then  the request is rejected with 501 not_supported_error saying "not a decision model"
    And   the server is healthy
